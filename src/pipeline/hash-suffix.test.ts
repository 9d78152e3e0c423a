import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { corpusCasesDir } from '../../test/repo-root.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { contentHash, encodeGoJson } from './hash-suffix.ts';

const casesDir = corpusCasesDir('kustomize');

/** Generated ConfigMaps and Secrets in the recorded outputs, with the hash kustomize gave each. */
function hashedObjects(): { caseName: string; obj: JsonObject; hash: string }[] {
  const found = [];
  for (const caseName of readdirSync(casesDir).sort()) {
    const file = path.join(casesDir, caseName, 'expected.yaml');
    if (!existsSync(file)) continue;
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const obj: unknown = doc.toJS();
      if (!isJsonObject(obj) || (obj.kind !== 'ConfigMap' && obj.kind !== 'Secret')) continue;
      const name = isJsonObject(obj.metadata) ? obj.metadata.name : undefined;
      const hash = typeof name === 'string' ? /-([2456789bcdfghkmt]{10})$/.exec(name)?.[1] : undefined;
      if (hash !== undefined) found.push({ caseName, obj, hash });
    }
  }
  return found;
}

describe('contentHash', () => {
  const recorded = hashedObjects();

  it('finds the generated objects of the corpus', () => {
    assert.ok(recorded.length >= 25, `only ${recorded.length} hashed objects found`);
  });

  for (const { caseName, obj, hash } of recorded) {
    const name = isJsonObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
    it(`gives ${name} in ${caseName} the hash kustomize gave it`, () => {
      assert.equal(contentHash(obj), hash);
    });
  }

  it('matches the reference example', () => {
    const obj = {
      kind: 'ConfigMap',
      metadata: { name: 'x' },
      data: { otherValue: 'green', testValue: 'purple' },
    };
    assert.equal(contentHash(obj), '9cd648hm8f');
  });

  it('ignores the name, namespace, labels and apiVersion', () => {
    const data = { a: 'b' };
    const plain = contentHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data });
    const renamed = {
      apiVersion: 'v2',
      kind: 'ConfigMap',
      metadata: { name: 'two', namespace: 'ns', labels: { x: 'y' } },
      data,
    };
    assert.equal(contentHash(renamed), plain);
  });

  // Recorded with kubectl kustomize (kustomize v5.5.0): a configMapGenerator and a secretGenerator
  // entry without sources give `e-6ct58987ht` (no data field) and `s-46f8b28mk5` (`data: {}`).
  it('hashes a missing data field as "" and an empty one as {}', () => {
    assert.equal(contentHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' } }), '6ct58987ht');
    assert.equal(
      contentHash({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: {}, type: 'Opaque' }),
      '46f8b28mk5',
    );
  });

  it('depends on binaryData, a Secret type and stringData', () => {
    const cm = { kind: 'ConfigMap', data: { a: 'b' } };
    assert.notEqual(contentHash({ ...cm, binaryData: { c: 'AA==' } }), contentHash(cm));
    const secret = { kind: 'Secret', data: { a: 'Yg==' }, type: 'Opaque' };
    assert.notEqual(contentHash({ ...secret, type: 'kubernetes.io/tls' }), contentHash(secret));
    assert.notEqual(contentHash({ ...secret, stringData: { c: 'd' } }), contentHash(secret));
  });
});

describe('encodeGoJson', () => {
  it('sorts keys, leaves no spaces and escapes as Go encoding/json does', () => {
    const encoded = encodeGoJson({
      b: '<b>&amp;</b>',
      a: ['\u2028\u2029', 1, true, null],
      c: '"\\\b\f\n\r\t\u0001\u007f',
    });
    assert.equal(
      encoded,
      '{"a":["\\u2028\\u2029",1,true,null],"b":"\\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e","c":"\\"\\\\\\b\\f\\n\\r\\t\\u0001\u007f"}',
    );
  });

  it('orders keys by UTF-8 bytes, not UTF-16 units', () => {
    assert.equal(
      encodeGoJson({ '\u{10000}': 1, '\uE000': 2, Z: 3, a: 4 }),
      '{"Z":3,"a":4,"\uE000":2,"\u{10000}":1}',
    );
  });

  it('writes a lone surrogate as U+FFFD', () => {
    assert.equal(encodeGoJson('x\uD800y'), '"x\uFFFDy"');
  });
});
