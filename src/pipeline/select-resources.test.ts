import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { corpusCasesDir } from '../../test/repo-root.ts';
import type { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Kustomization, Selector } from '../core/kustomization.ts';
import { Resource } from '../core/resource.ts';
import { parseYamlDocument, parseYamlDocuments } from '../core/yaml/yaml.ts';
import { RE2JS } from 're2js';
import {
  compileGoRegExp,
  isSelected,
  matchesLabelSelector,
  parseLabelSelector,
  SelectorError,
} from './select-resources.ts';

const casesDir = corpusCasesDir('kustomize');

function readObjects(file: string): JsonObject[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file).map((doc) => doc.value as JsonObject);
}

function readKustomization(file: string): Kustomization {
  return parseYamlDocument(readFileSync(file, 'utf8'), file) as Kustomization;
}

function key(obj: JsonObject): string {
  return JSON.stringify([
    obj.kind,
    isJsonObject(obj.metadata) ? [obj.metadata.namespace, obj.metadata.name] : [],
  ]);
}

/** Reads the code through the base class, where it is any string. */
function isSelectorInvalid(error: KaddonError): boolean {
  return error.code === 'selector-invalid';
}

function selected(resources: readonly Resource[], selector: Selector): string[] {
  return resources.filter((resource) => isSelected(resource, selector)).map((resource) => key(resource.obj));
}

describe('isSelected on patch-01-target-selectors', () => {
  const dir = path.join(casesDir, 'patch-01-target-selectors');
  const resources = readObjects(path.join(dir, 'input/resources.yaml')).map(
    (obj) => new Resource(obj, 'resources.yaml'),
  );
  const expected = readObjects(path.join(dir, 'expected.yaml'));
  const patches = readKustomization(path.join(dir, 'input/kustomization.yaml')).patches ?? [];

  /** The objects kustomize patched: those carrying the annotation the JSON patch adds, or replicas 7. */
  function patchedBy(patch: string): string[] {
    const annotation = /path: \/metadata\/annotations\/(\S+)/.exec(patch)?.[1];
    return expected
      .filter((obj) => {
        if (annotation === undefined) return isJsonObject(obj.spec) && obj.spec.replicas === 7;
        return (
          isJsonObject(obj.metadata) &&
          isJsonObject(obj.metadata.annotations) &&
          annotation in obj.metadata.annotations
        );
      })
      .map(key);
  }

  for (const entry of patches) {
    const target = entry.target ?? {};
    it(`selects what kustomize patched for target ${JSON.stringify(target)}`, () => {
      assert.deepEqual(selected(resources, target).sort(), patchedBy(entry.patch ?? '').sort());
    });
  }

  it('anchors the name regex and matches kind case-sensitively', () => {
    assert.deepEqual(selected(resources, { name: 'api' }), []);
    assert.deepEqual(selected(resources, { kind: 'deployment' }), []);
    assert.equal(selected(resources, { name: 'orders-.*' }).length, 3);
  });
});

describe('isSelected on patch-04-which-names-a-patch-can-use', () => {
  const dir = path.join(casesDir, 'patch-04-which-names-a-patch-can-use');
  const [cm] = readObjects(path.join(dir, 'input/base/cm.yaml'));
  const resource = new Resource(cm ?? {}, 'base/cm.yaml');
  resource.setName('b-app');
  resource.setName('m-b-app');
  const expected = readObjects(path.join(dir, 'expected.yaml'))[0] ?? {};
  const labels = (isJsonObject(expected.metadata) && expected.metadata.labels) || {};

  it('matches the original name (kustomize added selector-original-name)', () => {
    assert.ok(isJsonObject(labels) && 'selector-original-name' in labels);
    assert.equal(isSelected(resource, { kind: 'ConfigMap', name: 'app' }), true);
  });

  it('does not match an intermediate name (no selector-intermediate-name annotation)', () => {
    assert.equal(isJsonObject(expected.metadata) && expected.metadata.annotations, undefined);
    assert.equal(isSelected(resource, { kind: 'ConfigMap', name: 'b-app' }), false);
  });

  it('matches the current name (kustomize added data.selector-current-name)', () => {
    assert.ok(isJsonObject(expected.data) && expected.data['selector-current-name'] === 'matched');
    assert.equal(isSelected(resource, { kind: 'ConfigMap', name: 'm-b-app' }), true);
  });

  it('matches namespace default for an object without namespace', () => {
    assert.ok(isJsonObject(labels) && labels['selector-namespace-default'] === 'matched');
    assert.equal(isSelected(resource, { kind: 'ConfigMap', namespace: 'default' }), true);
    assert.equal(isSelected(resource, { namespace: 'shop' }), false);
  });
});

describe('isSelected namespaces', () => {
  const renamed = new Resource(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'dev' } },
    't',
  );
  renamed.setNamespace('prod');
  const clusterRole = new Resource(
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
    't',
  );

  it('tests the original and the current namespace', () => {
    assert.equal(isSelected(renamed, { namespace: 'dev' }), true);
    assert.equal(isSelected(renamed, { namespace: 'prod' }), true);
    assert.equal(isSelected(renamed, { namespace: 'default' }), false);
  });

  it('gives cluster-scoped objects no namespace, not default', () => {
    assert.equal(isSelected(clusterRole, { namespace: 'default' }), false);
    assert.equal(isSelected(clusterRole, { kind: 'ClusterRole' }), true);
  });

  it('rejects a selector field that is not a regex', () => {
    assert.throws(
      () => isSelected(renamed, { name: 'a(' }),
      (error: unknown) => error instanceof SelectorError && isSelectorInvalid(error),
    );
  });
});

describe('parseLabelSelector', () => {
  const labels = { tier: 'backend', app: 'orders', replicas: '3' };
  const cases: [string, boolean][] = [
    ['', true],
    ['tier=backend', true],
    ['tier==backend', true],
    ['tier!=backend', false],
    ['missing!=x', true],
    ['tier in (backend, frontend)', true],
    ['app notin (users)', true],
    ['missing notin (users)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['tier=backend,app in (orders,users)', true],
    ['tier=backend,app=users', false],
    ['replicas>2', true],
    ['replicas<2', false],
    ['tier>2', false],
    ['in=x', false],
  ];
  for (const [text, matches] of cases) {
    it(`'${text}' ${matches ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
      assert.equal(matchesLabelSelector(parseLabelSelector(text), labels), matches);
    });
  }

  it('reads the empty value of a= and of an empty set', () => {
    assert.deepEqual(parseLabelSelector('a='), [{ key: 'a', operator: '=', values: [''] }]);
    assert.deepEqual(parseLabelSelector('a in ()'), [{ key: 'a', operator: 'in', values: [''] }]);
    assert.deepEqual(parseLabelSelector('a in (x,)'), [{ key: 'a', operator: 'in', values: ['x', ''] }]);
  });

  for (const text of [
    'a in x',
    'a in (x',
    'a b',
    '!a=b',
    'a=b=c',
    'a=b,',
    ',a',
    'a>x',
    'a=-x',
    'bad key!',
    'x/y/z=1',
  ]) {
    it(`refuses '${text}' with a selector-invalid error`, () => {
      assert.throws(
        () => parseLabelSelector(text),
        (error: unknown) =>
          error instanceof SelectorError && isSelectorInvalid(error) && error.message.includes(`'${text}'`),
      );
    });
  }
});

describe('compileGoRegExp', () => {
  it('translates RE2-only syntax', () => {
    assert.equal(
      compileGoRegExp('(?i)deployment', { before: '^(?:', after: ')$' })?.test('Deployment'),
      true,
    );
    assert.equal(compileGoRegExp('(?P<n>a)b')?.test('ab'), true);
    assert.equal(compileGoRegExp('[[:digit:]]+', { before: '^', after: '$' })?.test('123'), true);
  });

  it('matches plain patterns (literal text and `.`) exactly as RE2 does', () => {
    const around = { before: '^(?:', after: ')$' };
    const texts = ['app.io/x', 'appXio/x', 'app\nio/x', 'app\rio/x', 'app😀io/x', 'app.io/xy', 'APP.io/x'];
    for (const pattern of ['app.io/x', 'registry.example.com:5000/a', 'a b', '']) {
      const re2 = RE2JS.compile(`${around.before}${pattern}${around.after}`);
      for (const text of texts) {
        assert.equal(
          compileGoRegExp(pattern, around)?.test(text),
          re2.matcher(text).find(),
          `${pattern} on ${text}`,
        );
      }
    }
  });

  it('refuses what RE2 refuses', () => {
    assert.equal(compileGoRegExp('a(?=b)'), undefined);
    assert.equal(compileGoRegExp('(a)\\1'), undefined);
    assert.equal(compileGoRegExp('a('), undefined);
    // Refused again: a refusal is not kept as if it compiled.
    assert.equal(compileGoRegExp('a('), undefined);
  });

  it('compiles a pattern once for all its copies, and keeps answering past the bound of kept ones', () => {
    const around = { before: '^(?:', after: ')$' };
    const first = compileGoRegExp('Deployment|StatefulSet', around);
    assert.equal(compileGoRegExp('Deployment|StatefulSet', around), first);
    // The same text wrapped otherwise is another pattern.
    assert.notEqual(compileGoRegExp('Deployment|StatefulSet'), first);
    for (let index = 0; index < 2500; index++) {
      const pattern = compileGoRegExp(`kind${String(index)}|other`, around);
      assert.equal(pattern?.test(`kind${String(index)}`), true);
      assert.equal(pattern.test(`kind${String(index)}x`), false);
    }
    const again = compileGoRegExp('Deployment|StatefulSet', around);
    assert.equal(again?.test('StatefulSet'), true);
    assert.equal(again.test('DaemonSet'), false);
  });
});
