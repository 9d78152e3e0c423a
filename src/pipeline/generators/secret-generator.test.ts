import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caseNode, expectedObjectNamed, nodeOf } from '../../../test/conformance-case.ts';
import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { KustomizationNode, SecretArgs } from '../../core/kustomization.ts';
import { contentHash } from '../hash-suffix.ts';
import { generateSecret } from './secret-generator.ts';

/** The object as it leaves the build: the name with its content hash when one is wanted. */
function finished(node: KustomizationNode, name: string): JsonObject {
  const args = node.spec.secretGenerator?.find((candidate) => candidate.name === name);
  assert.ok(args, `no secretGenerator ${name}`);
  const { resource } = generateSecret(args, node.spec.generatorOptions, node);
  const obj = structuredClone(resource.obj);
  if (resource.needsHashSuffix && isJsonObject(obj.metadata))
    obj.metadata.name = `${name}-${contentHash(obj)}`;
  return obj;
}

function secretOf(args: SecretArgs, files: Record<string, Uint8Array> = {}): JsonObject {
  return generateSecret(args, undefined, nodeOf({ secretGenerator: [args] }, new Map(Object.entries(files))))
    .resource.obj;
}

describe('generateSecret', () => {
  it('base64-encodes file content [kep-01, kep-02]', () => {
    assert.deepEqual(
      finished(caseNode('kep-01-community', 'components/external_db'), 'dbpass'),
      expectedObjectNamed('kep-01-community', 'dbpass'),
    );
    assert.deepEqual(
      finished(caseNode('kep-01-community', 'components/recaptcha'), 'recaptcha'),
      expectedObjectNamed('kep-01-community', 'recaptcha'),
    );
    assert.deepEqual(
      finished(caseNode('kep-02-enterprise', 'components/ldap'), 'ldappass'),
      expectedObjectNamed('kep-02-enterprise', 'ldappass'),
    );
  });

  it('applies generatorOptions, immutable and the Opaque default [gen-03]', () => {
    const node = caseNode('gen-03-generator-options');
    assert.deepEqual(finished(node, 'sec'), expectedObjectNamed('gen-03-generator-options', 'sec'));
  });

  // Recorded with kubectl kustomize (kustomize v5.5.0): base64 text of 70 characters or more is
  // cut into lines of 70, each ending in a newline; the result is `long-7kf8ck57k4`.
  it('wraps long base64 values at 70 characters', () => {
    const a = 'a'.repeat(51);
    const args = { name: 'long', literals: [`a=${a}`, `b=${a}a`, `c=${'a'.repeat(106)}`] };
    const obj = secretOf(args);
    assert.deepEqual(obj.data, {
      a: 'YWFh'.repeat(17),
      b: `${'YWFh'.repeat(17)}YQ\n==\n`,
      c: `${'YWFh'.repeat(17)}YW\nFh${'YWFh'.repeat(17)}\nYQ==\n`,
    });
    assert.equal(contentHash(obj), '7kf8ck57k4');
  });

  // Recorded with kubectl kustomize (kustomize v5.5.0): `s-46f8b28mk5`, with `data: {}`.
  it('writes an empty data map for a Secret without sources', () => {
    const obj = secretOf({ name: 's' });
    assert.deepEqual(obj, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: {},
    });
    assert.equal(contentHash(obj), '46f8b28mk5');
  });

  it('keeps a given type and encodes binary content into data', () => {
    const obj = secretOf(
      { name: 't', type: 'kubernetes.io/tls', files: ['tls.key'] },
      { 'tls.key': new Uint8Array([0, 0xff, 0xfe]) },
    );
    assert.equal(obj.type, 'kubernetes.io/tls');
    assert.deepEqual(obj.data, { 'tls.key': 'AP/+' });
    assert.equal(obj.binaryData, undefined);
    assert.equal(secretOf({ name: 't', type: '' }).type, 'Opaque');
  });

  it('names the secretGenerator in errors', () => {
    assert.throws(
      () => secretOf({ name: 'dup', literals: ['a=1', 'a=2'] }),
      (error: unknown) =>
        error instanceof KustomizeError &&
        error.code === 'generator-invalid' &&
        /secretGenerator 'dup': .*illegally repeats the key `a`/.test(error.message),
    );
    assert.throws(() => secretOf({ literals: ['a=1'] }), /secretGenerator entry has no name/);
  });
});
