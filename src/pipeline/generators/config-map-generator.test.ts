import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { caseNode, expectedObjectNamed, nodeOf } from '../../../test/conformance-case.ts';
import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { GeneratorArgs, KustomizationNode } from '../../core/kustomization.ts';
import { contentHash } from '../hash-suffix.ts';
import { generateConfigMap } from './config-map-generator.ts';

function entry(node: KustomizationNode, name: string): GeneratorArgs {
  const args = node.spec.configMapGenerator?.find((candidate) => candidate.name === name);
  assert.ok(args, `no configMapGenerator ${name}`);
  return args;
}

/** The object as it leaves the build: the name with its content hash when one is wanted. */
function finished(node: KustomizationNode, name: string): JsonObject {
  const { resource } = generateConfigMap(entry(node, name), node.spec.generatorOptions, node);
  const obj = structuredClone(resource.obj);
  if (resource.needsHashSuffix && isJsonObject(obj.metadata))
    obj.metadata.name = `${name}-${contentHash(obj)}`;
  return obj;
}

function nodeWith(args: GeneratorArgs, files: Record<string, string | Uint8Array> = {}): KustomizationNode {
  const bytes = new Map(
    Object.entries(files).map(([rel, content]) => [
      rel,
      typeof content === 'string' ? new TextEncoder().encode(content) : content,
    ]),
  );
  return nodeOf({ configMapGenerator: [args] }, bytes);
}

function generationError(
  args: GeneratorArgs,
  files: Record<string, string | Uint8Array> = {},
): KustomizeError {
  try {
    generateConfigMap(args, undefined, nodeWith(args, files));
  } catch (error: unknown) {
    assert.ok(error instanceof KustomizeError);
    assert.equal(error.code, 'generator-invalid');
    assert.ok(error.hint.length > 0);
    return error;
  }
  assert.fail('expected a KustomizeError');
}

describe('generateConfigMap', () => {
  it('collects envs, literals and files as kustomize does [gen-01]', () => {
    const node = caseNode('gen-01-configmap-sources');
    assert.deepEqual(
      finished(node, 'all-sources'),
      expectedObjectNamed('gen-01-configmap-sources', 'all-sources'),
    );
    assert.deepEqual(
      finished(node, 'html-chars'),
      expectedObjectNamed('gen-01-configmap-sources', 'html-chars'),
    );
  });

  it('merges generatorOptions into the entry options [gen-03]', () => {
    const node = caseNode('gen-03-generator-options');
    for (const name of ['global-opts', 'local-opts']) {
      assert.deepEqual(finished(node, name), expectedObjectNamed('gen-03-generator-options', name));
      assert.equal(
        generateConfigMap(entry(node, name), node.spec.generatorOptions, node).resource.needsHashSuffix,
        false,
      );
    }
  });

  it('puts non-UTF-8 file content under binaryData [gen-07]', () => {
    const node = caseNode('gen-07-binary-data');
    assert.deepEqual(finished(node, 'bin'), expectedObjectNamed('gen-07-binary-data', 'bin'));
  });

  it('does not validate keys [gen-09]', () => {
    const node = caseNode('gen-09-keys-are-not-validated');
    assert.deepEqual(
      finished(node, 'odd-keys'),
      expectedObjectNamed('gen-09-keys-are-not-validated', 'odd-keys'),
    );
  });

  // Recorded with kubectl kustomize (kustomize v5.5.0): BOM only stripped on line 1, CRLF
  // accepted (one CR dropped), `=value` lines skipped, a line without `=` gives "".
  it('parses env files line by line', () => {
    const env = new Uint8Array(
      Buffer.from('\uFEFFA=1\r\n=skip\r\nB\r\n  # c\n\t C= x\r\r\nD=1\n\uFEFFE=2', 'utf8'),
    );
    const args = { name: 'env', envs: ['e.env'] };
    const { resource } = generateConfigMap(args, undefined, nodeWith(args, { 'e.env': env }));
    assert.deepEqual(resource.obj.data, { A: '1', B: '', C: ' x\r', D: '1', '\uFEFFE': '2' });
    assert.equal(contentHash(resource.obj), 'ggck7b6f8f');
  });

  it('reads the legacy env after envs, and files by basename or key=path', () => {
    const args = { name: 'c', envs: ['a.env'], env: 'b.env', files: ['dir/x.txt', 'y=dir/x.txt'] };
    const { resource } = generateConfigMap(
      args,
      undefined,
      nodeWith(args, { 'a.env': 'A=1', 'b.env': 'B=2', 'dir/x.txt': 'x' }),
    );
    assert.deepEqual(resource.obj.data, { A: '1', B: '2', 'x.txt': 'x', y: 'x' });
  });

  it('keeps a lone quote and quotes that do not match', () => {
    const args = { name: 'q', literals: ['a="', 'b=\'x"', 'c=""'] };
    assert.deepEqual(generateConfigMap(args, undefined, nodeWith(args)).resource.obj.data, {
      a: '"',
      b: '\'x"',
      c: '',
    });
  });

  it('writes a lone surrogate in a literal as U+FFFD, as Go does, and sorts keys by their UTF-8', () => {
    const args = { name: 'u', literals: ['\u{1F600}=d', 'a=x\uD800y', 'b=\u{1F600}', '\uFF01=c'] };
    const data = generateConfigMap(args, undefined, nodeWith(args)).resource.obj.data;
    assert.deepEqual(data, { a: 'x\uFFFDy', b: '\u{1F600}', '\uFF01': 'c', '\u{1F600}': 'd' });
    // UTF-16 would put U+1F600 (0xD83D 0xDE00) before U+FF01; its UTF-8 bytes (F0…) come after.
    assert.deepEqual(Object.keys(data), ['a', 'b', '\uFF01', '\u{1F600}']);
  });

  it('sets namespace, source, hash flag and behavior', () => {
    const node = nodeWith({ name: 'n' });
    const made = generateConfigMap({ name: 'n', namespace: 'shop', behavior: 'merge' }, undefined, node);
    assert.deepEqual(made.resource.obj, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'n', namespace: 'shop' },
    });
    assert.equal(made.resource.source, `configMapGenerator 'n' in ${node.file}`);
    assert.equal(made.resource.needsHashSuffix, true);
    assert.equal(made.behavior, 'merge');
    assert.equal(generateConfigMap({ name: 'n', behavior: 'replace' }, undefined, node).behavior, 'replace');
    assert.equal(generateConfigMap({ name: 'n', behavior: 'Merge' }, undefined, node).behavior, 'create');
    assert.equal(generateConfigMap({ name: 'n', behavior: '' }, undefined, node).behavior, 'create');
  });

  it('rejects a key given twice [err-21]', () => {
    const node = caseNode('err-21-generator-duplicate-key');
    assert.throws(
      () => generateConfigMap(entry(node, 'dup'), undefined, node),
      (error: unknown) =>
        error instanceof KustomizeError &&
        error.file === node.file &&
        error.message.includes('illegally repeats the key `a`'),
    );
    assert.match(
      generationError({ name: 'd', files: ['f.txt', 'f.txt=f.txt'] }, { 'f.txt': '' }).message,
      /illegally repeats the key `f.txt`/,
    );
  });

  it('rejects a literal without key=value [err-22]', () => {
    const node = caseNode('err-22-generator-invalid-literal');
    assert.throws(
      () => generateConfigMap(entry(node, 'bad'), undefined, node),
      (error: unknown) =>
        error instanceof KustomizeError &&
        error.message.includes('invalid literal source no-equals-sign, expected key=value'),
    );
    assert.match(
      generationError({ name: 'l', literals: ['=x'] }).message,
      /invalid literal source =x, expected key=value/,
    );
  });

  it('rejects malformed file sources, unread files, a missing name and non-UTF-8 env files', () => {
    assert.match(
      generationError({ name: 'f', files: ['=f.txt'] }, { 'f.txt': '' }).message,
      /no key before '='/,
    );
    assert.match(generationError({ name: 'f', files: ['k='] }).message, /no path after '='/);
    assert.match(generationError({ name: 'f', files: ['a=b=f.txt'] }).message, /'=' in its key or path/);
    assert.match(generationError({ name: 'f', files: ['gone.txt'] }).message, /'gone.txt' could not be read/);
    assert.match(generationError({ literals: ['a=b'] }).message, /configMapGenerator entry has no name/);
    const bad = generationError(
      { name: 'e', envs: ['bad.env'] },
      { 'bad.env': new Uint8Array([0x41, 0x3d, 0x31, 0x0a, 0x41, 0x3d, 0xff]) },
    );
    assert.equal(bad.file, path.join('app', 'bad.env'));
    assert.match(bad.message, /configMapGenerator 'e' in app\/kustomization.yaml: line 2 is not valid UTF-8/);
  });
});
