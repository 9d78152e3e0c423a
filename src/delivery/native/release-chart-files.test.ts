import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { releaseChartTexts, writeReleaseChart } from '../helm/release-chart.ts';
import { readReleaseChart, releaseChartOf } from './release-chart-files.ts';

/** Slices of every shape the release chart holds: text, unicode, Go template braces, empty. */
function slices(count: number): string[] {
  const pieces = [
    'apiVersion: v1\nkind: ConfigMap\n',
    'data:\n  x: "{{ .Values.x }}"\n',
    'ü: ✓\n',
    '---\n',
    '\n',
    '',
  ];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
  return Array.from({ length: count }, () =>
    Array.from({ length: next() % 12 }, () => pieces[next() % pieces.length] ?? '').join(''),
  );
}

describe('the release chart read from memory against the same chart written and read back', () => {
  it('gives the record helm would store, byte for byte, for generated slices', async () => {
    const now = new Date('2026-12-06T12:00:00.123Z');
    for (const [index, manifest] of slices(40).entries()) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'kaddon-release-chart-'));
      try {
        const module = `m${String(index)}`;
        await writeReleaseChart(dir, module, manifest);
        const fromDisk = await readReleaseChart(dir, now);
        const fromMemory = releaseChartOf(`release ${module}`, releaseChartTexts(module, manifest), now);
        assert.deepEqual(fromMemory, fromDisk, `slice ${String(index)}: ${JSON.stringify(manifest)}`);
        assert.equal(fromMemory.output, manifest);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it('refuses a chart that is not a release chart, naming it', () => {
    assert.throws(
      () =>
        releaseChartOf(
          'release x',
          { 'Chart.yaml': 'name: x\n', 'templates/a.yaml': 'kind: A\n' },
          new Date(),
        ),
      /chart 'release x': not a release chart/,
    );
  });
});
