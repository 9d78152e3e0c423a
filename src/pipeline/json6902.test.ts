import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { caseObjects, caseText, objectNamed } from '../../test/conformance-case.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { getPath } from '../../test/get-path.ts';
import { applyJson6902, PatchError } from './json6902.ts';

/** The operations of an inline `patch: |-` or patch file, as kustomize reads them (YAML list). */
function operations(text: string): JsonValue[] {
  const value: unknown = parseYaml(text);
  assert.ok(Array.isArray(value));
  return value as JsonValue[];
}

/** The operations of the inline patch in a kustomization's `patches:` entry at `index`. */
function inlinePatch(caseName: string, file: string, index: number): JsonValue[] {
  const kustomization: unknown = parseYaml(caseText(caseName, file));
  assert.ok(isJsonObject(kustomization) && Array.isArray(kustomization.patches));
  const entry = kustomization.patches[index];
  assert.ok(isJsonObject(entry) && typeof entry.patch === 'string');
  return operations(entry.patch);
}

function failure(messageStart: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof PatchError, `expected a PatchError, got ${String(error)}`);
    assert.equal(error.code, 'patch-failed');
    assert.ok(error.message.startsWith(messageStart), error.message);
    assert.ok(error.hint.length > 0);
    return true;
  };
}

const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'app', labels: { app: 'web' } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'main', image: 'main:1' }] } } },
};

describe('applyJson6902: recorded behaviour', () => {
  it('inserts at a list index, so components applied in turn prepend in reverse order [kep-01]', () => {
    const caseName = 'kep-01-community';
    let result = objectNamed(caseObjects(caseName, 'input/base/deployment.yaml'), 'Deployment', 'example');
    for (const component of ['external_db', 'recaptcha']) {
      result = applyJson6902(
        result,
        operations(caseText(caseName, `input/components/${component}/deployment.yaml`)),
      );
    }
    const expected = objectNamed(caseObjects(caseName, 'expected-fifo.yaml'), 'Deployment', 'example');
    const field = (obj: JsonObject, at: string[], key: string): JsonValue[] => {
      const list = getPath(obj, at);
      return Array.isArray(list) ? list.map((item) => (isJsonObject(item) ? (item[key] ?? null) : item)) : [];
    };
    const volumes = ['spec', 'template', 'spec', 'volumes'];
    assert.deepEqual(field(result, volumes, 'name'), ['recaptcha', 'dbpass', 'conf']);
    assert.deepEqual(field(result, volumes, 'name'), field(expected, volumes, 'name'));
    const container = (obj: JsonObject): JsonObject => {
      const containers = getPath(obj, ['spec', 'template', 'spec', 'containers']);
      assert.ok(Array.isArray(containers) && isJsonObject(containers[0]));
      return containers[0];
    };
    const mountPaths = (obj: JsonObject): JsonValue[] => field(container(obj), ['volumeMounts'], 'mountPath');
    assert.deepEqual(mountPaths(result), [
      '/var/run/secrets/recaptcha/',
      '/var/run/secrets/db/',
      '/etc/config',
    ]);
    assert.deepEqual(mountPaths(result), mountPaths(expected));
  });

  it("appends with the '-' index [comp-02]", () => {
    const caseName = 'comp-02-later-component-patches-resource-of-earlier-component';
    const service = objectNamed(caseObjects(caseName, 'input/svc/service.yaml'), 'Service', 'web');
    const patch = inlinePatch(caseName, 'input/tls/kustomization.yaml', 0);
    assert.deepEqual(
      applyJson6902(service, patch),
      objectNamed(caseObjects(caseName, 'expected-fifo.yaml'), 'Service', 'web'),
    );
  });

  it('adds a whole map under an existing parent [comp-09]', () => {
    const caseName = 'comp-09-component-includes-kustomization-resource';
    const web = objectNamed(caseObjects(caseName, 'input/base/deploy.yaml'), 'Deployment', 'web');
    const patch = inlinePatch(caseName, 'input/monitoring/kustomization.yaml', 0);
    assert.deepEqual(
      applyJson6902(web, patch),
      objectNamed(caseObjects(caseName, 'expected-fifo.yaml'), 'Deployment', 'web'),
    );
  });

  it('adds an annotation to an object that has none, as kustomize build annotations make it exist [patch-01]', () => {
    const caseName = 'patch-01-target-selectors';
    const usersApi = objectNamed(caseObjects(caseName, 'input/resources.yaml'), 'Deployment', 'users-api');
    // The entries whose selectors pick users-api: name .*-api, kind+namespace, labelSelector.
    let result = usersApi;
    for (const index of [0, 1, 2])
      result = applyJson6902(result, inlinePatch(caseName, 'input/kustomization.yaml', index));
    assert.deepEqual(
      result,
      objectNamed(caseObjects(caseName, 'expected-fifo.yaml'), 'Deployment', 'users-api'),
    );
  });

  it('leaves no empty annotations behind when nothing was added', () => {
    const result = applyJson6902(deployment, [{ op: 'replace', path: '/spec/replicas', value: 2 }]);
    assert.equal(getPath(result, ['metadata', 'annotations']), undefined);
  });

  it('fails a test operation whose value differs, naming the path [err-16]', () => {
    const caseName = 'err-16-json6902-test-fails';
    const target = objectNamed(caseObjects(caseName, 'input/deploy.yaml'), 'Deployment', 'app');
    const patch = inlinePatch(caseName, 'input/kustomization.yaml', 0);
    const expectedText = caseText(caseName, 'expected-error.txt').trim();
    assert.throws(() => applyJson6902(target, patch), failure(expectedText));
  });
});

describe('applyJson6902: RFC 6902 as evanphx/json-patch v4 applies it', () => {
  it('fails replace when the parent path is missing', () => {
    assert.throws(
      () => applyJson6902(deployment, [{ op: 'replace', path: '/spec/strategy/type', value: 'Recreate' }]),
      failure('replace operation does not apply: doc is missing path: /spec/strategy/type'),
    );
  });

  it('lets replace create a missing key of an existing map (kustomize#4380)', () => {
    const result = applyJson6902(deployment, [{ op: 'replace', path: '/spec/paused', value: true }]);
    assert.equal(getPath(result, ['spec', 'paused']), true);
  });

  it('fails add when the parent path is missing', () => {
    assert.throws(
      () => applyJson6902(deployment, [{ op: 'add', path: '/spec/selector/matchLabels/app', value: 'web' }]),
      failure('add operation does not apply: doc is missing path: /spec/selector/matchLabels/app'),
    );
  });

  it("unescapes '~1' to '/' and '~0' to '~' in path segments", () => {
    const result = applyJson6902(deployment, [
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'tilde' },
    ]);
    assert.deepEqual(getPath(result, ['metadata', 'labels']), {
      app: 'web',
      'app.kubernetes.io/name': 'web',
      'a~b': 'tilde',
    });
  });

  it('removes keys and list elements, and fails on a key that is not there', () => {
    const result = applyJson6902(deployment, [
      { op: 'remove', path: '/metadata/labels/app' },
      { op: 'remove', path: '/spec/template/spec/containers/0' },
    ]);
    assert.deepEqual(getPath(result, ['metadata', 'labels']), {});
    assert.deepEqual(getPath(result, ['spec', 'template', 'spec', 'containers']), []);
    assert.throws(
      () => applyJson6902(deployment, [{ op: 'remove', path: '/metadata/labels/tier' }]),
      failure('error in remove for path: /metadata/labels/tier'),
    );
  });

  it('moves and copies values', () => {
    const result = applyJson6902(deployment, [
      { op: 'copy', from: '/metadata/labels', path: '/spec/template/metadata' },
      { op: 'move', from: '/spec/replicas', path: '/spec/minReadySeconds' },
    ]);
    assert.deepEqual(getPath(result, ['spec', 'template', 'metadata']), { app: 'web' });
    assert.equal(getPath(result, ['spec', 'minReadySeconds']), 1);
    assert.equal(getPath(result, ['spec', 'replicas']), undefined);
  });

  it('passes a test operation on an equal value and applies the next operation', () => {
    const result = applyJson6902(deployment, [
      { op: 'test', path: '/spec/template/spec/containers/0', value: { name: 'main', image: 'main:1' } },
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'main:2' },
    ]);
    const containers = getPath(result, ['spec', 'template', 'spec', 'containers']);
    assert.deepEqual(containers, [{ name: 'main', image: 'main:2' }]);
  });

  it('rejects a list index past the end', () => {
    assert.throws(
      () => applyJson6902(deployment, [{ op: 'add', path: '/spec/template/spec/containers/5', value: {} }]),
      failure('error in add for path: /spec/template/spec/containers/5'),
    );
  });

  it('rejects an unknown operation', () => {
    assert.throws(
      () => applyJson6902(deployment, [{ op: 'merge', path: '/spec', value: {} }]),
      failure('unexpected kind: merge'),
    );
  });

  it('leaves the target and the operations untouched', () => {
    const target = deepClone(deployment);
    const ops: JsonValue[] = [
      { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'side' } },
    ];
    const opsCopy = deepClone(ops);
    const result = applyJson6902(target, ops);
    const containers = getPath(result, ['spec', 'template', 'spec', 'containers']);
    assert.ok(Array.isArray(containers) && isJsonObject(containers[1]));
    containers[1].image = 'side:1';
    assert.deepEqual(target, deployment);
    assert.deepEqual(ops, opsCopy);
  });
});
