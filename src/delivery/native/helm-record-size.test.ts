import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../core/json.ts';
import { NativeDeliveryError } from './apply-release-objects.ts';
import { assertHelmCanStore, helmRecordSize, SECRET_DATA_LIMIT } from './helm-record-size.ts';
import { recordOfSecret } from './record-of-secret.ts';
import { releaseSecret, type ReleaseRecord } from './release-record.ts';

const helmSecret = JSON.parse(
  readFileSync(new URL('fixtures/helm-4.1.4-release-secret.json', import.meta.url), 'utf8'),
) as JsonObject;

function fixture(): ReleaseRecord {
  const record = recordOfSecret(helmSecret);
  assert.ok(record);
  return record;
}

/** What the API server counts of a Secret kaddon writes: its `data.release`, decoded once. */
function storedSize(record: ReleaseRecord): number {
  const data = releaseSecret(record, new Date()).data as { release: string };
  return Buffer.from(data.release, 'base64').length;
}

describe("helm's record size", () => {
  it('is at least what helm stored, and what kaddon stores, for the same record', () => {
    const stored = Buffer.from((helmSecret.data as { release: string }).release, 'base64').length;
    assert.ok(helmRecordSize(fixture()) >= stored);
    assert.ok(helmRecordSize(fixture()) >= storedSize(fixture()));
  });

  it("counts the escapes Go's JSON writes for <, > and &", () => {
    const text = (char: string): ReleaseRecord => ({ ...fixture(), manifest: char.repeat(50_000) });
    assert.ok(helmRecordSize(text('<')) > helmRecordSize(text('a')));
  });

  it('refuses a record over the Secret limit, naming the release, the revision and the size', () => {
    // Random data does not compress: its base64 is about as long in the record.
    const noise = randomBytes(900_000).toString('base64');
    const record = { ...fixture(), manifest: noise };
    const size = helmRecordSize(record);
    assert.ok(size > SECRET_DATA_LIMIT);
    assert.throws(
      () => {
        assertHelmCanStore(record);
      },
      (error: unknown) =>
        error instanceof NativeDeliveryError &&
        error.message.includes(`release 'demo': revision 2 would take about ${String(size)} bytes`),
    );
    assert.doesNotThrow(() => {
      assertHelmCanStore(fixture());
    });
  });
});
