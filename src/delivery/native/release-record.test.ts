import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../core/json.ts';
import { recordOfSecret, releaseSecret, withStatus } from './release-record.ts';

/** A revision the real helm 4.1.4 wrote for a release chart (test cluster, `helm upgrade --install`). */
const helmSecret = JSON.parse(
  readFileSync(new URL('fixtures/helm-4.1.4-release-secret.json', import.meta.url), 'utf8'),
) as JsonObject;

describe('release records in helm storage format', () => {
  it('reads the revision helm wrote', () => {
    const record = recordOfSecret(helmSecret);
    assert.ok(record);
    assert.equal(record.name, 'demo');
    assert.equal(record.version, 2);
    assert.equal(record.namespace, 'default');
    assert.equal(record.info.status, 'deployed');
    assert.equal(record.info.description, 'Upgrade complete');
    assert.deepEqual(record.config, { _kaddonModuleChecksum: 'def' });
    assert.equal(record.apply_method, 'ssa');
    assert.match(
      record.manifest,
      /^---\n# Source: demo\/templates\/manifest.yaml\napiVersion: v1\nkind: Namespace\n/,
    );
  });

  it('writes a Secret of the same shape, and the same record back', () => {
    const record = recordOfSecret(helmSecret);
    assert.ok(record);
    const written = releaseSecret(record, new Date('2026-11-28T10:47:39Z'));
    assert.deepEqual({ ...written, data: {} }, { ...helmSecret, data: {} });
    assert.deepEqual(recordOfSecret(written), record);
  });

  it('keeps what it does not know of a record when it changes the state', () => {
    const record = recordOfSecret(helmSecret);
    assert.ok(record);
    const superseded = withStatus(record, 'superseded', 'Upgrade complete');
    const reread = recordOfSecret(releaseSecret(superseded, new Date()));
    assert.ok(reread);
    assert.equal(reread.info.status, 'superseded');
    assert.deepEqual(reread.chart, record.chart);
    assert.equal(reread.info.first_deployed, record.info.first_deployed);
    assert.equal(reread.apply_method, 'ssa');
  });

  it('reads a record without gzip and without values, as helm does', () => {
    const plain = { name: 'x', version: 1, namespace: 'ns', info: { status: 'deployed' }, manifest: '' };
    const base64 = Buffer.from(JSON.stringify(plain)).toString('base64');
    const secret = { data: { release: Buffer.from(base64).toString('base64') } };
    assert.deepEqual(recordOfSecret(secret)?.config, {});
    assert.equal(recordOfSecret({ data: {} }), undefined);
  });
});
