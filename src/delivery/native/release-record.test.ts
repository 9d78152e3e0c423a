import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { JsonObject } from '../../core/json.ts';
import {
  MAX_RECORD_BYTES,
  readRecordSecret,
  recordOfSecret,
  ReleaseRecordError,
} from './record-of-secret.ts';
import { releaseSecret, withStatus } from './release-record.ts';

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
    const record = recordOfSecret(secretHolding(Buffer.from(JSON.stringify(plain))));
    assert.deepEqual(record.config, {});
    assert.equal(record.info.description, '');
  });
});

/** A Secret helm could have written for revision 1 of release `x` in `ns`, holding `packed`. */
function secretHolding(packed: Buffer, labels: Record<string, string> = {}): JsonObject {
  return {
    metadata: {
      name: 'sh.helm.release.v1.x.v1',
      namespace: 'ns',
      labels: { name: 'x', owner: 'helm', status: 'deployed', version: '1', ...labels },
    },
    data: { release: Buffer.from(packed.toString('base64')).toString('base64') },
  };
}

function recordJson(change: (record: Record<string, unknown>) => void = () => undefined): Buffer {
  const record: Record<string, unknown> = {
    name: 'x',
    version: 1,
    namespace: 'ns',
    info: { status: 'deployed', description: 'Install complete' },
    chart: {},
    config: {},
    manifest: '',
  };
  change(record);
  return gzipSync(JSON.stringify(record));
}

/** The message reading `secret` fails with. */
function failure(secret: JsonObject): string {
  const read = readRecordSecret(secret);
  assert.ok(read instanceof ReleaseRecordError, 'the record is refused');
  return read.message;
}

describe('records as input (docs/delivery.md "Release records")', () => {
  const subject = /^release record 'ns\/sh\.helm\.release\.v1\.x\.v1': /;
  const secret = 'SECRET-BYTES-{not-json}';

  it('names the Secret and what is wrong, and never quotes its bytes', () => {
    const cases: [JsonObject, RegExp][] = [
      [{ ...secretHolding(Buffer.from('')), data: {} }, /has no data\.release/],
      [
        {
          ...secretHolding(Buffer.from('')),
          data: { release: Buffer.from(`%%${secret}`).toString('base64') },
        },
        /not base64 of base64/,
      ],
      [secretHolding(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from(secret)])), /gzip data is broken/],
      [secretHolding(gzipSync(secret)), /not JSON/],
      [
        { ...secretHolding(Buffer.from('')), data: { release: 'A'.repeat(3 * 1024 * 1024) } },
        /larger than a Secret may be/,
      ],
      [secretHolding(gzipSync('['.repeat(10_000))), /nests deeper than 500 levels/],
      [secretHolding(gzipSync(JSON.stringify([secret]))), /not an object/],
      [secretHolding(gzipSync(Buffer.alloc(MAX_RECORD_BYTES + 1, 0x20))), /unpacks to more than 8 MiB/],
    ];
    for (const [bad, problem] of cases) {
      const message = failure(bad);
      assert.match(message, subject);
      assert.match(message, problem);
      assert.doesNotMatch(message, /SECRET-BYTES/);
    }
  });

  it('checks the type of each field the engines read', () => {
    const wrong: [(record: Record<string, unknown>) => void, RegExp][] = [
      [(r) => (r.name = 7), /name is not a non-empty string/],
      [(r) => (r.version = '1'), /version is not a positive integer/],
      [(r) => (r.version = 1.5), /version is not a positive integer/],
      [(r) => (r.namespace = []), /namespace is not a string/],
      [(r) => (r.info = 'deployed'), /info is not an object/],
      [(r) => (r.info = { status: 3 }), /info\.status is not one of/],
      [(r) => (r.info = { status: 'done' }), /info\.status is not one of/],
      [(r) => (r.info = { status: 'deployed', first_deployed: 1 }), /info\.first_deployed is not a string/],
      [(r) => (r.info = { status: 'deployed', description: {} }), /info\.description is not a string/],
      [(r) => (r.chart = 'c'), /chart is not an object/],
      [(r) => (r.config = [1]), /config is not an object/],
      [(r) => (r.manifest = { kind: 'Secret' }), /manifest is not a string/],
      [(r) => (r.hooks = {}), /hooks is not a list/],
    ];
    for (const [change, problem] of wrong) assert.match(failure(secretHolding(recordJson(change))), problem);
  });

  it('refuses a record its labels or its Secret name disagree with', () => {
    const cases: [JsonObject, RegExp][] = [
      [
        secretHolding(recordJson(), { version: '2' }),
        /labels say revision 2 of release 'x', its content revision 1/,
      ],
      [secretHolding(recordJson(), { name: 'y' }), /labels say revision 1 of release 'y'/],
      [
        secretHolding(recordJson(), { status: 'superseded' }),
        /status label says superseded, its content deployed/,
      ],
      [secretHolding(recordJson((r) => (r.namespace = 'other'))), /release of namespace 'other'/],
    ];
    const copy = secretHolding(recordJson());
    copy.metadata = { ...(copy.metadata as JsonObject), name: 'sh.helm.release.v1.x.v1-copy' };
    cases.push([
      copy,
      /holds revision 1 of release 'x', which helm stores as sh\.helm\.release\.v1\.x\.v1\./,
    ]);
    for (const [bad, problem] of cases) assert.match(failure(bad), problem);
  });
});
