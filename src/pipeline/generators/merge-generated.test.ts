import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { corpusCasesDir } from '../../../test/repo-root.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { Kustomization, KustomizationNode } from '../../core/kustomization.ts';
import { Resource } from '../../core/resource.ts';
import { contentHash } from '../hash-suffix.ts';
import { generateConfigMap } from './config-map-generator.ts';
import { mergeGenerated } from './merge-generated.ts';
import { generateSecret } from './secret-generator.ts';

const casesDir = corpusCasesDir('kustomize');

/** A literal-only kustomization of a conformance case, as a node without files. */
function caseNode(caseName: string, entry: string): KustomizationNode {
  const dir = path.join(casesDir, caseName, 'input', entry);
  const file = path.join(dir, 'kustomization.yaml');
  const spec = parse(readFileSync(file, 'utf8')) as Kustomization;
  const empty = { resources: [], components: [], generators: [], transformers: [], validators: [] };
  return { dir, file, kind: 'Kustomization', spec, files: new Map(), filePaths: new Map(), ...empty };
}

/** The object `name` made by the generator in `caseName`'s `entry` directory. */
function generated(
  caseName: string,
  entry: string,
  kind: 'ConfigMap' | 'Secret',
  name: string,
): { resource: Resource; behavior: string } {
  const node = caseNode(caseName, entry);
  const options = node.spec.generatorOptions;
  const cm = node.spec.configMapGenerator?.find((args) => args.name === name);
  const secret = node.spec.secretGenerator?.find((args) => args.name === name);
  if (kind === 'ConfigMap' && cm) return generateConfigMap(cm, options, node);
  if (kind === 'Secret' && secret) return generateSecret(secret, options, node);
  assert.fail(`${caseName}/${entry} has no ${kind} generator ${name}`);
}

/** Generates `name` in `base` and absorbs the entry of the same name in each later directory. */
function absorbed(
  caseName: string,
  kind: 'ConfigMap' | 'Secret',
  name: string,
  base: string,
  ...overlays: string[]
): Resource {
  let result = generated(caseName, base, kind, name).resource;
  for (const entry of overlays) {
    const { resource, behavior } = generated(caseName, entry, kind, name);
    assert.ok(behavior === 'merge' || behavior === 'replace');
    result = mergeGenerated(result, resource, behavior);
  }
  return result;
}

/** The object as the build writes it: with a name prefix and the content hash when wanted. */
function finished(resource: Resource, prefix = ''): JsonObject {
  const obj = structuredClone(resource.obj);
  const hash = resource.needsHashSuffix ? `-${contentHash(obj)}` : '';
  if (isJsonObject(obj.metadata)) obj.metadata.name = `${prefix}${resource.name}${hash}`;
  return obj;
}

function expectedObject(caseName: string, name: string): JsonObject {
  const text = readFileSync(path.join(casesDir, caseName, 'expected.yaml'), 'utf8');
  const found = parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .find((obj) => isJsonObject(obj) && isJsonObject(obj.metadata) && obj.metadata.name === name);
  assert.ok(isJsonObject(found), `${caseName} has no object ${name}`);
  return found;
}

describe('mergeGenerated', () => {
  it('merges data with the new value winning per key [gen-04]', () => {
    const c = 'gen-04-overlay-merge-updates-references';
    const config = absorbed(c, 'ConfigMap', 'app-config', 'base', 'overlay');
    assert.deepEqual(finished(config, 'dev-'), expectedObject(c, 'dev-app-config-fcf876m49d'));
    const secret = absorbed(c, 'Secret', 'app-secret', 'base', 'overlay');
    assert.deepEqual(finished(secret, 'dev-'), expectedObject(c, 'dev-app-secret-7269gm27k5'));
  });

  it('replaces the data and merges labels on replace [gen-05]', () => {
    const c = 'gen-05-overlay-replace';
    assert.deepEqual(
      finished(absorbed(c, 'ConfigMap', 'cfg', 'base', 'overlay')),
      expectedObject(c, 'cfg-dh6h576fbt'),
    );
  });

  it('merges and replaces from components [ct-01, comp-06]', () => {
    const ct = absorbed('ct-01-basic-component', 'ConfigMap', 'my-configmap', 'base', 'comp');
    assert.deepEqual(
      finished(ct, 'comp-'),
      expectedObject('ct-01-basic-component', 'comp-my-configmap-97647ckcmg'),
    );
    const c = 'comp-06-generator-merge-and-replace-in-components';
    assert.deepEqual(
      finished(absorbed(c, 'ConfigMap', 'settings', 'overlay', 'merge')),
      expectedObject(c, 'settings-mth6gbdht4'),
    );
    assert.deepEqual(
      finished(absorbed(c, 'ConfigMap', 'flags', 'overlay', 'replace')),
      expectedObject(c, 'flags-588tk542k9'),
    );
    assert.deepEqual(
      finished(absorbed(c, 'Secret', 'creds', 'overlay', 'merge')),
      expectedObject(c, 'creds-m2b2kb77mk'),
    );
  });

  // gen-10a (base hashed, overlay merge with disableNameSuffixHash) was recorded with kubectl
  // kustomize (kustomize v5.5.0) on the gen-10b input tree: the output is named `a`.
  it('keeps the hash suffix only when both objects want one [gen-10b, gen-10c]', () => {
    const b = 'gen-10b-hash-flag-after-merge-old-disabled';
    const oldDisabled = absorbed(b, 'ConfigMap', 'a', 'base-nohash', 'ov-enable');
    assert.equal(oldDisabled.needsHashSuffix, false);
    assert.deepEqual(finished(oldDisabled), expectedObject(b, 'a'));
    assert.equal(absorbed(b, 'ConfigMap', 'a', 'base-hash', 'ov-disable').needsHashSuffix, false);
    const c = 'gen-10c-hash-flag-after-replace-both-enabled';
    const both = absorbed(c, 'ConfigMap', 'a', 'base-hash', 'ov-both');
    assert.equal(both.needsHashSuffix, true);
    assert.deepEqual(finished(both), expectedObject(c, 'a-786c7hbck9'));
  });

  it("keeps the existing object's name, namespace and history", () => {
    const existing = generated('ct-01-basic-component', 'base', 'ConfigMap', 'my-configmap').resource;
    existing.setName('base-my-configmap');
    existing.setNamespace('shop');
    existing.namePrefixes.push('base-');
    existing.owner = 'storefront';
    const before = structuredClone(existing.obj);
    const { resource } = generated('ct-01-basic-component', 'comp', 'ConfigMap', 'my-configmap');
    const result = mergeGenerated(existing, resource, 'merge');
    assert.deepEqual([result.name, result.namespace], ['base-my-configmap', 'shop']);
    assert.deepEqual(result.previousIds, existing.previousIds);
    assert.notEqual(result.previousIds, existing.previousIds);
    assert.deepEqual(
      [result.namePrefixes, result.owner, result.source],
      [['base-'], 'storefront', existing.source],
    );
    assert.deepEqual(existing.obj, before);
  });

  // Recorded with kubectl kustomize (kustomize v5.5.0): merging a generator into a ConfigMap and a
  // Secret read from a resource file.
  it('merges into objects from resource files as kustomize does', () => {
    const plain = new Resource(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'plain',
          namespace: 'default',
          generateName: 'gg',
          labels: { a: 'old', keep: 'yes' },
          annotations: { note: 'old' },
        },
        data: { num: 1, n: null, s: 'str' },
        binaryData: { b: 'AAEC' },
        immutable: true,
      },
      'cm.yaml',
    );
    const node = caseNode('gen-05-overlay-replace', 'base');
    const update = generateConfigMap(
      { name: 'plain', literals: ['s=new'], options: { labels: { a: 'new' } } },
      undefined,
      node,
    ).resource;
    const merged = mergeGenerated(plain, update, 'merge');
    assert.deepEqual(merged.obj, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'plain',
        namespace: 'default',
        labels: { a: 'new', keep: 'yes' },
        annotations: { note: 'old' },
      },
      data: { n: '', num: '1', s: 'new' },
      binaryData: { b: 'AAEC' },
    });
    assert.equal(merged.needsHashSuffix, false);
    const replaced = mergeGenerated(plain, update, 'replace');
    assert.deepEqual(replaced.obj.data, { s: 'new' });
    assert.equal(replaced.obj.binaryData, undefined);

    const tls = new Resource(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'tls' },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': 'eA==' },
      },
      's.yaml',
    );
    const secret = generateSecret({ name: 'tls', literals: ['x=y'] }, undefined, node).resource;
    assert.deepEqual(mergeGenerated(tls, secret, 'merge').obj, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls' },
      type: 'Opaque',
      data: { 'tls.crt': 'eA==', x: 'eQ==' },
    });
  });
});
