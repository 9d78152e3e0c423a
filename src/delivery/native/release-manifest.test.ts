import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../core/json.ts';
import { revisionsToTrim } from './release-history.ts';
import { releaseManifest } from './release-manifest.ts';
import { recordOfSecret } from './record-of-secret.ts';
import type { ReleaseRecord } from './release-record.ts';

const helmRecord = recordOfSecret(
  JSON.parse(
    readFileSync(new URL('fixtures/helm-4.1.4-release-secret.json', import.meta.url), 'utf8'),
  ) as JsonObject,
);

describe('the manifest helm stores', () => {
  it('is the chart file split, sorted by kind and marked with its source, as helm 4.1.4 stored it', () => {
    assert.ok(helmRecord);
    const files = helmRecord.chart.files as { name: string; data: string }[];
    const slice = Buffer.from(files[0]?.data ?? '', 'base64').toString('utf8');
    const made = releaseManifest(slice, 'demo/templates/manifest.yaml', 'test');
    assert.equal(made.text, helmRecord.manifest);
    assert.deepEqual(
      made.objects.map((object) => object.kind),
      ['Namespace', 'ConfigMap'],
    );
  });

  it('puts unlisted kinds last, by name, each kind in its original order', () => {
    const doc = (kind: string, name: string): string =>
      `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
    const text = [
      doc('Zeta', 'z'),
      doc('Service', 's'),
      doc('Alpha', 'a1'),
      doc('Alpha', 'a2'),
      doc('Namespace', 'n'),
    ];
    const made = releaseManifest(text.join('---\n'), 'm/templates/manifest.yaml', 'test');
    assert.deepEqual(
      made.objects.map((object) => (object.metadata as JsonObject).name),
      ['n', 's', 'a1', 'a2', 'z'],
    );
  });
});

describe('history trimmed as HELM_HISTORY_MAX says', () => {
  const revision = (version: number, status: ReleaseRecord['info']['status']): ReleaseRecord => ({
    name: 'm',
    namespace: 'ns',
    version,
    chart: {},
    config: {},
    manifest: '',
    info: { first_deployed: '', last_deployed: '', description: '', status },
  });

  it('leaves room for one more revision, oldest first, never the deployed one', () => {
    const history = [revision(1, 'deployed'), revision(2, 'failed'), revision(3, 'failed')];
    assert.deepEqual(
      revisionsToTrim(history, 2).map((record) => record.version),
      [2, 3],
    );
    assert.deepEqual(revisionsToTrim(history, 4), []);
    assert.deepEqual(revisionsToTrim(history, 0), []);
  });
});
