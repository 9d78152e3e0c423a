import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { KustomizeError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { Resource } from '../../core/resource.ts';
import {
  builtinTransformerConfig,
  mergeTransformerConfigs,
  parseTransformerConfig,
} from '../transformer-config.ts';
import { fixNameReferences } from './name-reference.ts';
import { getPath } from '../../../test/get-path.ts';

const NAME_REFERENCE = builtinTransformerConfig().nameReference;

function load(text: string): Resource[] {
  return parseAllDocuments(text).map((doc) => new Resource(doc.toJS() as JsonObject, 'input.yaml'));
}

function find(resources: readonly Resource[], kind: string, name: string): Resource {
  const found = resources.find((r) => r.kind === kind && r.name === name);
  assert.ok(found, `${kind}/${name} in the result`);
  return found;
}

/** What namePrefix / nameSuffix leave on an object: the new name, the old id and the affixes. */
function rename(r: Resource, prefix: string, suffix = ''): void {
  r.setName(`${prefix}${r.name}${suffix}`);
  if (prefix) r.namePrefixes.push(prefix);
  if (suffix) r.nameSuffixes.push(suffix);
}

function at(r: Resource, path: string): unknown {
  return getPath(r.obj, path.split('.'));
}

describe('fixNameReferences', () => {
  it('follows nested prefixes and suffixes into every default referrer field (prefix-01)', () => {
    const resources = load(`
apiVersion: v1
kind: Service
metadata: {name: api}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  template:
    spec:
      serviceAccountName: api-sa
      priorityClassName: high
      volumes:
      - name: data
        persistentVolumeClaim: {claimName: api-data}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: api-sa}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: api-data}
spec: {storageClassName: fast}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: api}
spec:
  rules:
  - http:
      paths:
      - backend:
          service: {name: api, port: {number: 80}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: api-reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: api-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: api-reader}
subjects:
- {kind: ServiceAccount, name: api-sa, namespace: default}
`);
    for (const r of resources) rename(r, 'b-');
    for (const r of resources) rename(r, 'o-', '-x');

    fixNameReferences(resources, NAME_REFERENCE);

    const deployment = find(resources, 'Deployment', 'o-b-api-x');
    assert.equal(at(deployment, 'spec.template.spec.serviceAccountName'), 'o-b-api-sa-x');
    assert.equal(at(deployment, 'spec.template.spec.priorityClassName'), 'o-b-high-x');
    assert.deepEqual(at(deployment, 'spec.template.spec.volumes'), [
      { name: 'data', persistentVolumeClaim: { claimName: 'o-b-api-data-x' } },
    ]);
    assert.equal(
      at(find(resources, 'PersistentVolumeClaim', 'o-b-api-data-x'), 'spec.storageClassName'),
      'o-b-fast-x',
    );
    assert.deepEqual(at(find(resources, 'HorizontalPodAutoscaler', 'o-b-api-x'), 'spec.scaleTargetRef'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'o-b-api-x',
    });
    const ingress = find(resources, 'Ingress', 'o-b-api-x');
    assert.deepEqual(at(ingress, 'spec.rules'), [
      { http: { paths: [{ backend: { service: { name: 'o-b-api-x', port: { number: 80 } } } }] } },
    ]);
    const binding = find(resources, 'ClusterRoleBinding', 'o-b-api-reader-x');
    assert.equal(at(binding, 'roleRef.name'), 'o-b-api-reader-x');
    // The ServiceAccount has no namespace of its own, so the subject keeps the one it states.
    assert.deepEqual(binding.obj.subjects, [
      { kind: 'ServiceAccount', name: 'o-b-api-sa-x', namespace: 'default' },
    ]);
  });

  it('picks the copy with the same prefix when a base is included twice (prefix-02)', () => {
    const shared = `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      containers:
      - name: app
        envFrom:
        - configMapRef: {name: settings}
`;
    const blue = load(shared);
    const green = load(shared);
    for (const r of blue) rename(r, 'blue-');
    for (const r of green) rename(r, 'green-');

    fixNameReferences([...blue, ...green], NAME_REFERENCE);

    const envFrom = (r: Resource): unknown => at(r, 'spec.template.spec.containers');
    assert.deepEqual(envFrom(find(blue, 'Deployment', 'blue-app')), [
      { name: 'app', envFrom: [{ configMapRef: { name: 'blue-settings' } }] },
    ]);
    assert.deepEqual(envFrom(find(green, 'Deployment', 'green-app')), [
      { name: 'app', envFrom: [{ configMapRef: { name: 'green-settings' } }] },
    ]);
  });

  it('gives every pod-spec reference the prefixed, hashed name of a generated object (gen-04)', () => {
    const resources = load(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      containers:
      - name: app
        envFrom:
        - configMapRef: {name: app-config}
        env:
        - name: COLOR
          valueFrom:
            configMapKeyRef: {name: app-config, key: COLOR}
        - name: TOKEN
          valueFrom:
            secretKeyRef: {name: app-secret, key: token}
      volumes:
      - name: cfg
        configMap: {name: app-config}
      - name: projected
        projected:
          sources:
          - configMap: {name: app-config}
          - secret: {name: app-secret}
      - name: sec
        secret: {secretName: app-secret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
---
apiVersion: v1
kind: Secret
metadata: {name: app-secret}
`);
    for (const r of resources) rename(r, 'dev-');
    find(resources, 'ConfigMap', 'dev-app-config').setName('dev-app-config-fcf876m49d');
    find(resources, 'Secret', 'dev-app-secret').setName('dev-app-secret-7269gm27k5');

    fixNameReferences(resources, NAME_REFERENCE);

    const spec = at(find(resources, 'Deployment', 'dev-app'), 'spec.template.spec');
    assert.deepEqual(spec, {
      containers: [
        {
          name: 'app',
          envFrom: [{ configMapRef: { name: 'dev-app-config-fcf876m49d' } }],
          env: [
            {
              name: 'COLOR',
              valueFrom: { configMapKeyRef: { name: 'dev-app-config-fcf876m49d', key: 'COLOR' } },
            },
            {
              name: 'TOKEN',
              valueFrom: { secretKeyRef: { name: 'dev-app-secret-7269gm27k5', key: 'token' } },
            },
          ],
        },
      ],
      volumes: [
        { name: 'cfg', configMap: { name: 'dev-app-config-fcf876m49d' } },
        {
          name: 'projected',
          projected: {
            sources: [
              { configMap: { name: 'dev-app-config-fcf876m49d' } },
              { secret: { name: 'dev-app-secret-7269gm27k5' } },
            ],
          },
        },
        { name: 'sec', secret: { secretName: 'dev-app-secret-7269gm27k5' } },
      ],
    });
  });

  it('fixes ServiceAccount, CronJob, Ingress and Pod references and leaves names outside the build (gen-08)', () => {
    const resources = load(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
imagePullSecrets:
- name: pull
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: job}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          imagePullSecrets: [{name: pull}]
          containers:
          - name: c
            envFrom: [{configMapRef: {name: cm}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  tls:
  - secretName: tls
    hosts: [example.com]
---
apiVersion: v1
kind: Pod
metadata: {name: pod}
spec:
  containers:
  - name: c
    env:
    - name: X
      valueFrom: {configMapKeyRef: {name: cm, key: k}}
    - name: EXTERNAL
      valueFrom: {configMapKeyRef: {name: not-generated-here, key: k}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: v1
kind: Secret
metadata: {name: pull}
type: kubernetes.io/dockerconfigjson
---
apiVersion: v1
kind: Secret
metadata: {name: tls}
`);
    for (const r of resources) rename(r, 'p-');
    find(resources, 'ConfigMap', 'p-cm').setName('p-cm-bdg947hgcc');
    find(resources, 'Secret', 'p-pull').setName('p-pull-9fdfh69d2f');
    find(resources, 'Secret', 'p-tls').setName('p-tls-4ck76hgfk5');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(find(resources, 'ServiceAccount', 'p-sa').obj.imagePullSecrets, [
      { name: 'p-pull-9fdfh69d2f' },
    ]);
    const podSpec = at(find(resources, 'CronJob', 'p-job'), 'spec.jobTemplate.spec.template.spec');
    assert.deepEqual(podSpec, {
      imagePullSecrets: [{ name: 'p-pull-9fdfh69d2f' }],
      containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'p-cm-bdg947hgcc' } }] }],
    });
    assert.deepEqual(at(find(resources, 'Ingress', 'p-ing'), 'spec.tls'), [
      { secretName: 'p-tls-4ck76hgfk5', hosts: ['example.com'] },
    ]);
    assert.deepEqual(at(find(resources, 'Pod', 'p-pod'), 'spec.containers'), [
      {
        name: 'c',
        env: [
          { name: 'X', valueFrom: { configMapKeyRef: { name: 'p-cm-bdg947hgcc', key: 'k' } } },
          { name: 'EXTERNAL', valueFrom: { configMapKeyRef: { name: 'not-generated-here', key: 'k' } } },
        ],
      },
    ]);
  });

  it('uses back-references added by a configurations file (comp-14)', () => {
    const custom = parseTransformerConfig(
      {
        nameReference: [
          { kind: 'ConfigMap', version: 'v1', fieldSpecs: [{ kind: 'Widget', path: 'spec/configRef' }] },
        ],
      },
      'widget-support/fieldspecs.yaml',
    );
    const config = mergeTransformerConfigs(builtinTransformerConfig(), custom);
    const resources = load(`
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {configRef: settings}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`);
    find(resources, 'ConfigMap', 'settings').setName('settings-4h2mbtbbt6');

    fixNameReferences(resources, config.nameReference);

    assert.equal(at(find(resources, 'Widget', 'w'), 'spec.configRef'), 'settings-4h2mbtbbt6');
  });

  it('rewrites each name in a list of names (Role rules/resourceNames)', () => {
    const resources = load(`
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules:
- resourceNames: [cm, unrelated]
- verbs: [get]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
`);
    for (const r of resources) rename(r, 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(find(resources, 'Role', 'p-reader').obj.rules, [
      { resourceNames: ['p-cm', 'unrelated'] },
      { verbs: ['get'] },
    ]);
  });

  it('only matches names an object had before, never the current name of an object left as it was', () => {
    // kubectl kustomize: a base with namePrefix z- turns ConfigMap cm into z-cm; an overlay adds
    // another ConfigMap cm and a Deployment naming cm, which then names z-cm.
    const resources = load(`
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      volumes: [{configMap: {name: cm}}]
`);
    const [renamed] = resources;
    assert.ok(renamed);
    rename(renamed, 'z-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(at(find(resources, 'Deployment', 'd'), 'spec.template.spec.volumes'), [
      { configMap: { name: 'z-cm' } },
    ]);
  });

  it('prefers a candidate without affixes over one with different affixes', () => {
    // kubectl kustomize: base r (namePrefix r-) names ConfigMap x; base a (namePrefix a-) has a
    // ConfigMap x; base g generates ConfigMap x, hashed at the top: the reference gets the hashed one.
    const resources = load(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      volumes: [{configMap: {name: x}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
`);
    const [deployment, prefixed, generated] = resources;
    assert.ok(deployment && prefixed && generated);
    rename(deployment, 'r-');
    rename(prefixed, 'a-');
    generated.setName('x-bdg947hgcc');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(at(deployment, 'spec.template.spec.volumes'), [{ configMap: { name: 'x-bdg947hgcc' } }]);
  });

  it('only lets a namespaced referrer name objects in its own namespace', () => {
    const resources = load(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: a}
spec:
  template:
    spec:
      volumes: [{configMap: {name: cm}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: a}
`);
    const [, other, own] = resources;
    assert.ok(other && own);
    other.setName('cm-other');
    own.setName('cm-own');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(at(find(resources, 'Deployment', 'd'), 'spec.template.spec.volumes'), [
      { configMap: { name: 'cm-own' } },
    ]);
  });

  it('writes name and namespace into subjects and webhook services', () => {
    // kubectl kustomize: namespace: foo records a previous id even for a ServiceAccount already in
    // foo, and the subject that names it gets the namespace.
    const resources = load(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: foo}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: foo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects:
- {kind: ServiceAccount, name: sa}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: old}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vwc}
webhooks:
- name: a
  clientConfig: {service: {name: svc, namespace: old}}
- name: b
  clientConfig: {service: {name: svc, namespace: elsewhere}}
- name: c
  clientConfig: {url: 'https://x'}
`);
    find(resources, 'ServiceAccount', 'sa').rememberId();
    const service = find(resources, 'Service', 'svc');
    service.setNamespace('new');
    rename(service, 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(find(resources, 'RoleBinding', 'rb').obj.subjects, [
      { kind: 'ServiceAccount', name: 'sa', namespace: 'foo' },
    ]);
    assert.deepEqual(find(resources, 'ValidatingWebhookConfiguration', 'vwc').obj.webhooks, [
      { name: 'a', clientConfig: { service: { name: 'p-svc', namespace: 'new' } } },
      { name: 'b', clientConfig: { service: { name: 'svc', namespace: 'elsewhere' } } },
      { name: 'c', clientConfig: { url: 'https://x' } },
    ]);
  });

  it('lets a RoleBinding name a ServiceAccount in the namespace its subject states', () => {
    const resources = load(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: other}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: top}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects:
- {kind: ServiceAccount, name: sa, namespace: other}
`);
    rename(find(resources, 'ServiceAccount', 'sa'), 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(find(resources, 'RoleBinding', 'rb').obj.subjects, [
      { kind: 'ServiceAccount', name: 'p-sa', namespace: 'other' },
    ]);
  });

  it('follows roleRef.kind to tell a Role from a ClusterRole of the same name', () => {
    const resources = load(`
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
`);
    find(resources, 'Role', 'r').setName('role-r');
    find(resources, 'ClusterRole', 'r').setName('cluster-r');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.equal(at(find(resources, 'RoleBinding', 'rb'), 'roleRef.name'), 'cluster-r');
  });

  it('skips referrers whose original kind the field spec does not select', () => {
    const resources = load(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      serviceAccountName: sa
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
`);
    const deployment = find(resources, 'Deployment', 'd');
    deployment.previousIds.push({ ...deployment.id, kind: 'Widget' });
    rename(find(resources, 'ServiceAccount', 'sa'), 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.equal(at(deployment, 'spec.template.spec.serviceAccountName'), 'sa');
  });

  it('fails on a reference two objects could answer, naming both', () => {
    const resources = load(`
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: other}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
- resourceNames: [cm]
`);
    const [first, second] = resources;
    assert.ok(first && second);
    first.setName('cm-1');
    second.setName('cm-2');

    assert.throws(
      () => {
        fixNameReferences(resources, NAME_REFERENCE);
      },
      (error: unknown) =>
        error instanceof KustomizeError &&
        error.code === 'name-reference-ambiguous' &&
        error.message.includes('ConfigMap.v1.[noGrp]/cm-1.[noNs]') &&
        error.message.includes('ConfigMap.v1.[noGrp]/cm-2.other'),
    );
  });

  it('takes the first of several candidates that all carry the same name', () => {
    const resources = load(`
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
- resourceNames: [cm]
`);
    for (const r of resources) rename(r, 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(find(resources, 'ClusterRole', 'p-reader').obj.rules, [{ resourceNames: ['p-cm'] }]);
  });

  it('passes over null list items and null names, as kubectl kustomize does', () => {
    const resources = load(`
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      volumes:
      - null
      - configMap: {name: cm}
      - configMap: null
      - configMap: {name: null}
`);
    for (const r of resources) rename(r, 'p-');

    fixNameReferences(resources, NAME_REFERENCE);

    assert.deepEqual(at(find(resources, 'Deployment', 'p-d'), 'spec.template.spec.volumes'), [
      null,
      { configMap: { name: 'p-cm' } },
      { configMap: null },
      { configMap: { name: null } },
    ]);
  });

  it('rejects a map-valued referrer field without a name', () => {
    const resources = load(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mwc}
webhooks:
- clientConfig: {service: {namespace: x}}
`);

    assert.throws(
      () => {
        fixNameReferences(resources, NAME_REFERENCE);
      },
      (error: unknown) => error instanceof KustomizeError && error.code === 'field-spec-invalid',
    );
  });
});
