import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  casesDir,
  expectedObjects,
  readKustomization,
  readResources,
} from '../../../test/conformance-case.ts';
import { KustomizeError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Replacement } from '../../core/kustomization.ts';
import { Resource } from '../../core/resource.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { applyReplacements, splitReplacementPath } from './replacements.ts';

/** Resources from YAML text, for the rule tests. */
function resourcesOf(text: string): Resource[] {
  return parseYamlDocuments(text, 'test').map((doc) => new Resource(doc.value as JsonObject, 'test'));
}

function replacementsOf(text: string): Replacement[] {
  return parse(text) as Replacement[];
}

function refusal(code: string, file: string, ...parts: string[]) {
  return (error: unknown): boolean =>
    error instanceof KustomizeError &&
    error.code === code &&
    error.file === file &&
    parts.every((part) => error.message.includes(part)) &&
    error.hint !== '';
}

describe('applyReplacements on the conformance corpus', () => {
  it('comp-13: copies a local-config value into a created annotation, as a string', () => {
    const dir = path.join(casesDir, 'comp-13-local-config-values-for-replacements/input');
    const [ingress] = readResources(path.join(dir, 'ingress1/ingress.yaml'));
    const values = readResources(path.join(dir, 'components/blue-green/values.yaml'));
    assert.ok(ingress);
    const component = readKustomization(path.join(dir, 'components/blue-green/kustomization.yaml'));
    applyReplacements(
      [ingress, ...values],
      component.replacements ?? [],
      'components/blue-green/kustomization.yaml',
    );
    assert.deepEqual(ingress.obj, expectedObjects('comp-13-local-config-values-for-replacements')[0]);
  });

  it('ct-10: reads the namespace the component set, through a [name=…] field path', () => {
    const dir = path.join(casesDir, 'ct-10-components-applied-before-replacements/input');
    const resources = readResources(path.join(dir, 'resource.yaml'));
    for (const resource of resources) resource.setNamespace('kustomize-namespace');
    applyReplacements(
      resources,
      readKustomization(path.join(dir, 'kustomization.yaml')).replacements ?? [],
      'k.yaml',
    );
    assert.deepEqual(
      resources.map((resource) => resource.obj),
      expectedObjects('ct-10-components-applied-before-replacements'),
    );
  });
});

const DEPLOYMENTS = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {tier: front}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: app, image: "nginx:1.7.9", ports: [{containerPort: 80}], args: [PORT, HOST]}
      - {name: app-sidecar, image: "envoy:1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: {tier: back}}
spec:
  template:
    spec:
      containers:
      - {name: app, image: "postgres:1.8.0"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: config}
data: {PORT: "8080", HOST: example.com, FLAG: "true", REF: "registry/app:2.0"}
`;

function run(replacements: string, text = DEPLOYMENTS): Resource[] {
  const resources = resourcesOf(text);
  applyReplacements(resources, replacementsOf(replacements), 'k.yaml');
  return resources;
}

function at(resources: readonly Resource[], name: string, ...fieldPath: (string | number)[]): unknown {
  let node: unknown = resources.find((resource) => resource.name === name)?.obj;
  for (const part of fieldPath) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

describe('applyReplacements values', () => {
  it('gives a scalar target the text of the source and keeps the target type', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.PORT}
  targets:
  - select: {name: web}
    fieldPaths: [spec.template.spec.containers.0.ports.0.containerPort, spec.template.spec.containers.0.args.0]
- source: {kind: Deployment, name: web, fieldPath: spec.replicas}
  targets:
  - select: {kind: ConfigMap}
    fieldPaths: [data.HOST]
`);
    assert.equal(
      at(resources, 'web', 'spec', 'template', 'spec', 'containers', 0, 'ports', 0, 'containerPort'),
      8080,
    );
    assert.equal(at(resources, 'web', 'spec', 'template', 'spec', 'containers', 0, 'args', 0), '8080');
    assert.equal(at(resources, 'config', 'data', 'HOST'), '1');
  });

  it('types a created scalar like a plain YAML scalar (so "8080" becomes 8080)', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.PORT}
  targets:
  - select: {name: api}
    fieldPaths: [spec.replicas, spec.template.spec.containers.0.name2]
    options: {create: true}
`);
    assert.equal(at(resources, 'api', 'spec', 'replicas'), 8080);
    assert.equal(at(resources, 'api', 'spec', 'template', 'spec', 'containers', 0, 'name2'), 8080);
  });

  it('replaces a map or list target with the whole source value', () => {
    const resources = run(`
- source: {kind: Deployment, name: web, fieldPath: spec.template.spec.containers}
  targets:
  - select: {name: api}
    fieldPaths: [spec.template.spec.containers]
`);
    assert.deepEqual(
      at(resources, 'api', 'spec', 'template', 'spec', 'containers'),
      at(resources, 'web', 'spec', 'template', 'spec', 'containers'),
    );
  });

  it('takes a piece of the source and writes a piece of the target with delimiters', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.REF, options: {delimiter: ":", index: 1}}
  targets:
  - select: {name: web}
    fieldPaths: ["spec.template.spec.containers.[name=app-sidecar].image"]
    options: {delimiter: ":", index: 1}
  - select: {name: api}
    fieldPaths: [spec.template.spec.containers.0.image]
    options: {delimiter: ":", index: -1}
`);
    assert.equal(at(resources, 'web', 'spec', 'template', 'spec', 'containers', 1, 'image'), 'envoy:2.0');
    assert.equal(
      at(resources, 'api', 'spec', 'template', 'spec', 'containers', 0, 'image'),
      '2.0:postgres:1.8.0',
    );
  });

  it('writes a sourceValue', () => {
    const resources = run(`
- sourceValue: "3"
  targets:
  - select: {kind: Deployment}
    fieldPaths: [spec.replicas]
    options: {create: true}
`);
    assert.equal(at(resources, 'web', 'spec', 'replicas'), 3);
    assert.equal(at(resources, 'api', 'spec', 'replicas'), 3);
  });

  it('defaults both field paths to metadata.name', () => {
    const resources = run(`
- source: {kind: ConfigMap}
  targets:
  - select: {name: api}
`);
    assert.deepEqual(
      resources.map((resource) => resource.name),
      ['web', 'config', 'config'],
    );
  });
});

describe('applyReplacements field paths', () => {
  it('matches [field=value] as an unanchored regex, as kyaml does', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.HOST}
  targets:
  - select: {name: web}
    fieldPaths: ["spec.template.spec.containers.[name=app].env"]
    options: {create: true}
`);
    const containers = at(resources, 'web', 'spec', 'template', 'spec', 'containers') as JsonObject[];
    assert.deepEqual(
      containers.map((container) => container.env),
      ['example.com', 'example.com'],
    );
  });

  it('appends {field: value} for [field=value] and an element for an index equal to the length', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.HOST}
  targets:
  - select: {name: api}
    fieldPaths:
    - "spec.template.spec.containers.[name=app].env.[name=HOST].value"
    - spec.tls.0.hosts.0
    options: {create: true}
`);
    assert.deepEqual(at(resources, 'api', 'spec', 'template', 'spec', 'containers', 0, 'env'), [
      { name: 'HOST', value: 'example.com' },
    ]);
    assert.deepEqual(at(resources, 'api', 'spec', 'tls'), [{ hosts: ['example.com'] }]);
  });

  it('visits every element with *', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.FLAG}
  targets:
  - select: {name: web}
    fieldPaths: ["spec.template.spec.containers.*.tty"]
    options: {create: true}
`);
    const containers = at(resources, 'web', 'spec', 'template', 'spec', 'containers') as JsonObject[];
    assert.deepEqual(
      containers.map((container) => container.tty),
      [true, true],
    );
  });

  it('splits paths at dots, keeping [field=value] and bracketed keys whole', () => {
    assert.deepEqual(
      splitReplacementPath('metadata.annotations.[external-dns.alpha.kubernetes.io/aws-weight]'),
      ['metadata', 'annotations', 'external-dns.alpha.kubernetes.io/aws-weight'],
    );
    assert.deepEqual(splitReplacementPath('spec.data.[name=.first].key'), [
      'spec',
      'data',
      '[name=.first]',
      'key',
    ]);
    assert.deepEqual(splitReplacementPath('a\\.b.c'), ['a.b', 'c']);
  });
});

describe('applyReplacements selection', () => {
  it('selects targets by label selector and drops rejected ids and labels', () => {
    const resources = run(`
- source: {kind: ConfigMap, fieldPath: data.HOST}
  targets:
  - select: {kind: Deployment, labelSelector: "tier in (front, back)"}
    reject: [{name: api}]
    fieldPaths: [metadata.annotations.host]
    options: {create: true}
  - select: {kind: Deployment}
    reject: [{labelSelector: tier=front}]
    fieldPaths: [metadata.annotations.other]
    options: {create: true}
`);
    assert.deepEqual(at(resources, 'web', 'metadata', 'annotations'), { host: 'example.com' });
    assert.deepEqual(at(resources, 'api', 'metadata', 'annotations'), { other: 'example.com' });
  });

  it('finds the source and the targets by a previous name', () => {
    const resources = resourcesOf(DEPLOYMENTS);
    for (const resource of resources) resource.setName(`p-${resource.name}`);
    applyReplacements(
      resources,
      replacementsOf(`
- source: {kind: Deployment, name: web, fieldPath: spec.replicas}
  targets:
  - select: {name: config}
    fieldPaths: [data.PORT]
`),
      'k.yaml',
    );
    assert.equal(at(resources, 'p-config', 'data', 'PORT'), '1');
  });
});

describe('applyReplacements refusals', () => {
  it('refuses a missing target field without create', () => {
    assert.throws(
      () =>
        run(`
- source: {kind: ConfigMap}
  targets:
  - select: {name: api}
    fieldPaths: [spec.replicas]
`),
      refusal('replacement-invalid', 'k.yaml', "unable to find field 'spec.replicas'", 'Deployment/api'),
    );
  });

  it('refuses an index past the end even with create', () => {
    assert.throws(
      () =>
        run(`
- source: {kind: ConfigMap}
  targets:
  - select: {name: api}
    fieldPaths: [spec.tls.5.hosts]
    options: {create: true}
`),
      refusal('replacement-invalid', 'k.yaml', 'index 5 specified but only 0 elements found'),
    );
  });

  it('refuses a source that selects none or several resources', () => {
    assert.throws(
      () => run(`[{source: {kind: Secret}, targets: []}]`),
      refusal('replacement-invalid', 'k.yaml', 'selects no resource'),
    );
    assert.throws(
      () => run(`[{source: {kind: Deployment}, targets: []}]`),
      refusal(
        'replacement-invalid',
        'k.yaml',
        'selects more than one resource',
        'Deployment/web',
        'Deployment/api',
      ),
    );
  });

  it('refuses a missing or empty source field and an index out of bounds', () => {
    assert.throws(
      () => run(`[{source: {kind: ConfigMap, fieldPath: data.NOPE}, targets: []}]`),
      refusal('replacement-invalid', 'k.yaml', "fieldPath 'data.NOPE' is missing"),
    );
    assert.throws(
      () =>
        run(
          `[{source: {kind: ConfigMap, fieldPath: data.HOST, options: {delimiter: ".", index: 2}}, targets: []}]`,
        ),
      refusal('replacement-invalid', 'k.yaml', 'options.index 2 is out of bounds'),
    );
  });

  it('refuses replacements without source or targets, or with both source and sourceValue', () => {
    assert.throws(
      () => run(`[{targets: []}]`),
      refusal('replacement-invalid', 'k.yaml', 'must have a source'),
    );
    assert.throws(
      () => run(`[{source: {kind: ConfigMap}, sourceValue: x, targets: []}]`),
      refusal('replacement-invalid', 'k.yaml', 'both source and sourceValue'),
    );
    assert.throws(
      () => run(`[{sourceValue: x, targets: [{fieldPaths: [a]}]}]`),
      refusal('replacement-invalid', 'k.yaml', 'must specify resources to select'),
    );
  });

  it('refuses a delimiter on a map and a bad label selector', () => {
    assert.throws(
      () => run(`[{source: {kind: ConfigMap, fieldPath: data, options: {delimiter: "."}}, targets: []}]`),
      refusal('replacement-invalid', 'k.yaml', 'options.delimiter needs a scalar'),
    );
    assert.throws(
      () => run(`[{sourceValue: x, targets: [{select: {labelSelector: "a in b"}}]}]`),
      refusal('replacement-invalid', 'k.yaml', "labelSelector 'a in b'"),
    );
  });
});
