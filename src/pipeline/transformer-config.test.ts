import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KustomizeError } from '../core/errors.ts';
import type { FieldSpec } from '../core/kustomization.ts';
import {
  builtinTransformerConfig,
  mergeTransformerConfigs,
  parseTransformerConfig,
  type TransformerConfig,
} from './transformer-config.ts';

function specsFor(specs: readonly FieldSpec[], kind: string | undefined): FieldSpec[] {
  return specs.filter((spec) => spec.kind === kind);
}

function backReference(config: TransformerConfig, kind: string, version?: string) {
  const found = config.nameReference.find((entry) => entry.kind === kind && entry.version === version);
  assert.ok(found, `nameReference entry for ${kind}`);
  return found;
}

function isFieldSpecInvalid(error: unknown): boolean {
  return error instanceof KustomizeError && error.code === 'field-spec-invalid';
}

describe('builtinTransformerConfig', () => {
  it('holds kustomize v5.5.0 builtin tables, as many entries as kustomize keeps', () => {
    const config = builtinTransformerConfig();
    const sizes = Object.fromEntries(
      Object.entries(config).map(([key, list]) => [key, (list as unknown[]).length]),
    );
    assert.deepEqual(sizes, {
      namePrefix: 1,
      nameSuffix: 1,
      namespace: 3,
      commonLabels: 32,
      labels: 0,
      templateLabels: 10,
      commonAnnotations: 9,
      images: 4,
      replicas: 4,
      varReference: 72,
      nameReference: 16,
    });
  });

  it('orders back-references by kind priority, then group/version/kind, as kustomize sorts them', () => {
    assert.deepEqual(
      builtinTransformerConfig().nameReference.map((entry) => entry.kind),
      [
        'StorageClass',
        'ServiceAccount',
        'Role',
        'ClusterRole',
        'ConfigMap',
        'Secret',
        'Service',
        'PriorityClass',
        'PersistentVolume',
        'PersistentVolumeClaim',
        'Deployment',
        'StatefulSet',
        'ValidatingAdmissionPolicy',
        'IngressClass',
        'ReplicaSet',
        'ReplicationController',
      ],
    );
  });

  it('creates selectors only where kustomize does (labels-01)', () => {
    const { commonLabels } = builtinTransformerConfig();
    assert.deepEqual(specsFor(commonLabels, 'Service'), [
      { version: 'v1', kind: 'Service', path: 'spec/selector', create: true },
    ]);
    assert.deepEqual(specsFor(commonLabels, 'Job'), [
      { group: 'batch', kind: 'Job', path: 'spec/selector/matchLabels' },
      { group: 'batch', kind: 'Job', path: 'spec/template/metadata/labels', create: true },
    ]);
    assert.deepEqual(specsFor(commonLabels, 'PodDisruptionBudget'), [
      { group: 'policy', kind: 'PodDisruptionBudget', path: 'spec/selector/matchLabels' },
    ]);
    assert.ok(commonLabels.some((spec) => spec.path === 'spec/volumeClaimTemplates[]/metadata/labels'));
    assert.deepEqual(specsFor(commonLabels, undefined), [{ path: 'metadata/labels', create: true }]);
  });

  it('gives templates, but no selectors, to labels with includeTemplates (labels-02)', () => {
    const { templateLabels } = builtinTransformerConfig();
    assert.ok(templateLabels.every((spec) => !spec.path.includes('selector')));
    assert.deepEqual(specsFor(templateLabels, 'CronJob'), [
      { group: 'batch', kind: 'CronJob', path: 'spec/jobTemplate/metadata/labels', create: true },
      {
        group: 'batch',
        kind: 'CronJob',
        path: 'spec/jobTemplate/spec/template/metadata/labels',
        create: true,
      },
    ]);
  });

  it('annotates metadata and pod templates (annotations-01)', () => {
    const paths = builtinTransformerConfig().commonAnnotations.map(
      (spec) => `${spec.kind ?? '*'} ${spec.path}`,
    );
    assert.ok(paths.includes('* metadata/annotations'));
    assert.ok(paths.includes('Deployment spec/template/metadata/annotations'));
    assert.ok(paths.includes('CronJob spec/jobTemplate/spec/template/metadata/annotations'));
  });

  it('expands vars in container fields and metadata but not in ConfigMap data (vars-01)', () => {
    const { varReference } = builtinTransformerConfig();
    assert.ok(
      varReference.some(
        (spec) => spec.kind === 'Deployment' && spec.path === 'spec/template/spec/containers/env/value',
      ),
    );
    assert.ok(varReference.some((spec) => spec.kind === undefined && spec.path === 'metadata/labels'));
    assert.ok(!varReference.some((spec) => spec.path.startsWith('data')));
  });

  it('keeps kustomize quirks: IngressClass under a group that never matches, Ingress TLS listed twice', () => {
    const config = builtinTransformerConfig();
    assert.equal(backReference(config, 'IngressClass', 'v1').group, 'networking.k8s.io/v1');
    const secretRefs = backReference(config, 'Secret', 'v1').fieldSpecs;
    assert.equal(secretRefs.length, 70);
    assert.equal(
      secretRefs.filter((spec) => spec.kind === 'Ingress' && spec.path === 'spec/tls/secretName').length,
      2,
    );
    assert.equal(backReference(config, 'ConfigMap', 'v1').fieldSpecs.length, 52);
  });

  it('is one shared configuration, frozen: merging makes new ones', () => {
    const config = builtinTransformerConfig();
    assert.equal(builtinTransformerConfig(), config);
    assert.ok(Object.isFrozen(config.commonLabels));
    assert.ok(Object.isFrozen(backReference(config, 'ConfigMap', 'v1').fieldSpecs));
  });
});

describe('mergeTransformerConfigs', () => {
  const widget = parseTransformerConfig(
    {
      commonLabels: [{ kind: 'Widget', path: 'spec/selector/matchLabels', create: true }],
      nameReference: [
        { kind: 'ConfigMap', version: 'v1', fieldSpecs: [{ kind: 'Widget', path: 'spec/configRef' }] },
      ],
    },
    'widget-support/fieldspecs.yaml',
  );

  it('adds a component’s field specs to the builtin ones (comp-14)', () => {
    const merged = mergeTransformerConfigs(builtinTransformerConfig(), widget);
    assert.deepEqual(specsFor(merged.commonLabels, 'Widget'), [
      { kind: 'Widget', path: 'spec/selector/matchLabels', create: true },
    ]);
    const configMapRefs = backReference(merged, 'ConfigMap', 'v1').fieldSpecs;
    assert.equal(configMapRefs.length, 53);
    assert.deepEqual(configMapRefs.at(-1), { kind: 'Widget', path: 'spec/configRef' });
    assert.equal(merged.nameReference.length, 16);
  });

  it('ignores field specs already present', () => {
    const once = mergeTransformerConfigs(builtinTransformerConfig(), widget);
    assert.deepEqual(mergeTransformerConfigs(once, widget), once);
  });

  it('keeps a back-reference to another GVK of the same kind apart', () => {
    const custom = parseTransformerConfig(
      { nameReference: [{ kind: 'Service', fieldSpecs: [{ kind: 'Gateway', path: 'spec/service' }] }] },
      'c.yaml',
    );
    const merged = mergeTransformerConfigs(builtinTransformerConfig(), custom);
    assert.deepEqual(backReference(merged, 'Service').fieldSpecs, [
      { kind: 'Gateway', path: 'spec/service' },
    ]);
    assert.equal(backReference(merged, 'Service', 'v1').fieldSpecs.length, 8);
  });

  it('lets a spec for one kind hide the kind-less spec of the same path, as kubectl kustomize does', () => {
    const custom = parseTransformerConfig(
      { commonLabels: [{ kind: 'Service', path: 'metadata/labels', create: true }] },
      'c.yaml',
    );
    const merged = mergeTransformerConfigs(builtinTransformerConfig(), custom);
    assert.deepEqual(
      merged.commonLabels.filter((spec) => spec.path === 'metadata/labels'),
      [{ kind: 'Service', path: 'metadata/labels', create: true }],
    );
  });

  it('rejects two specs for one field that differ only in create, naming the file', () => {
    const custom = parseTransformerConfig(
      { commonLabels: [{ version: 'v1', kind: 'Service', path: 'spec/selector' }] },
      'c.yaml',
    );
    assert.throws(
      () => mergeTransformerConfigs(builtinTransformerConfig(), custom, 'overlay/c.yaml'),
      (error: unknown) => isFieldSpecInvalid(error) && (error as KustomizeError).file === 'overlay/c.yaml',
    );
  });
});

describe('parseTransformerConfig', () => {
  it('reads every list key, labels included', () => {
    const config = parseTransformerConfig(
      {
        labels: [{ kind: 'Service', path: 'spec/zzz', create: true }],
        varReference: [{ kind: 'ConfigMap', path: 'data/url' }],
        images: [{ group: 'example.com', version: 'v1', kind: 'Widget', path: 'spec/image' }],
      },
      'c.yaml',
    );
    assert.deepEqual(config.labels, [{ kind: 'Service', path: 'spec/zzz', create: true }]);
    assert.deepEqual(config.varReference, [{ kind: 'ConfigMap', path: 'data/url' }]);
    assert.deepEqual(config.images, [
      { group: 'example.com', version: 'v1', kind: 'Widget', path: 'spec/image' },
    ]);
    assert.deepEqual(config.namePrefix, []);
  });

  it('reads keys case-insensitively and scalars the way kustomize’s YAML reader does', () => {
    const config = parseTransformerConfig(
      { CommonLabels: [{ Kind: 'Widget', path: 5, create: 'yes' }] },
      'c.yaml',
    );
    assert.deepEqual(config.commonLabels, [{ kind: 'Widget', path: '5', create: true }]);
  });

  it('reads an empty file, and null lists, as nothing', () => {
    assert.deepEqual(parseTransformerConfig(null, 'c.yaml'), parseTransformerConfig({}, 'c.yaml'));
    assert.deepEqual(parseTransformerConfig({ commonLabels: null }, 'c.yaml').commonLabels, []);
  });

  it('merges duplicates within the file', () => {
    const spec = { kind: 'Widget', path: 'spec/x', create: true };
    assert.deepEqual(parseTransformerConfig({ commonLabels: [spec, spec] }, 'c.yaml').commonLabels, [spec]);
  });

  const invalid: readonly [string, unknown][] = [
    ['an unknown key', { bogus: 1 }],
    ['an unknown field-spec key', { commonLabels: [{ path: 'x', extra: 1 }] }],
    [
      'an unknown back-reference key',
      { nameReference: [{ kind: 'Service', apiVersion: 'v1', fieldSpecs: [] }] },
    ],
    ['a list that is not a list', { commonLabels: 3 }],
    ['fieldSpecs that are not a list', { nameReference: [{ kind: 'Service', fieldSpecs: 3 }] }],
    ['a create that is not a boolean', { commonLabels: [{ path: 'x', create: 5 }] }],
    ['a path that is not a scalar', { commonLabels: [{ path: ['x'] }] }],
    ['a document that is a list', ['a']],
  ];
  for (const [what, doc] of invalid) {
    it(`rejects ${what}, naming the file`, () => {
      assert.throws(
        () => parseTransformerConfig(doc, 'overlay/fieldspecs.yaml'),
        (error: unknown) =>
          isFieldSpecInvalid(error) && (error as KustomizeError).message.includes('overlay/fieldspecs.yaml'),
      );
    });
  }
});
