import path from 'node:path';
import { parseArgs } from 'node:util';
import { ChartRenderer } from '../src/delivery/helm/chart-renderer.ts';
import { HelmClient } from '../src/delivery/helm/helm-client.ts';
import { ensureReferenceHelm, ensureRenderer, rendererHelmVersion } from '../test/charts/reference-helm.ts';
import { repoRoot } from '../test/repo-root.ts';

/**
 * `npm run bench:chart-render [-- --renders N]`: N renders of each of three charts (the example chart
 * module, test/charts/corpus/features and big-values), by the chart renderer and by `helm template`
 * of the same Helm version, one after the other in this process, with a different value each time;
 * prints milliseconds per render and the ratio (docs/performance.md "Chart modules").
 */
const { values } = parseArgs({ options: { renders: { type: 'string', default: '100' } } });
const renders = Number(values.renders);

const charts: [string, string, (index: number) => Record<string, unknown>][] = [
  [
    'examples/chart-module 010-web',
    path.join(repoRoot, 'examples/chart-module/modules/010-web'),
    (index) => ({ global: { registry: 'r.example' }, web: { replicas: index, image: 'nginx', port: 80 } }),
  ],
  ['corpus/features', path.join(repoRoot, 'test/charts/corpus/features'), (index) => ({ replicas: index })],
  [
    'corpus/big-values (2,000 entries)',
    path.join(repoRoot, 'test/charts/corpus/big-values'),
    (index) => ({ n: index }),
  ],
];

async function timeRenders(
  templater: { template: HelmClient['template'] },
  dir: string,
  valuesFor: (index: number) => Record<string, unknown>,
): Promise<number> {
  await templater.template('warm', 'bench', dir, valuesFor(0) as never);
  const start = performance.now();
  for (let index = 1; index <= renders; index++)
    await templater.template('bench', 'bench', dir, valuesFor(index) as never);
  return (performance.now() - start) / renders;
}

const renderer = new ChartRenderer({ binary: ensureRenderer() });
const helm = new HelmClient({ helmPath: await ensureReferenceHelm() });
process.stdout.write(
  `## Chart renders: kaddon-chart-renderer against helm template ${rendererHelmVersion()}, ${String(renders)} renders each\n\n`,
);
process.stdout.write(
  '| chart | renderer ms/render | helm template ms/render | helm ÷ renderer |\n|---|---:|---:|---:|\n',
);
for (const [name, dir, valuesFor] of charts) {
  const ours = await timeRenders(renderer, dir, valuesFor);
  const theirs = await timeRenders(helm, dir, valuesFor);
  process.stdout.write(
    `| ${name} | ${ours.toFixed(1)} | ${theirs.toFixed(1)} | ${(theirs / ours).toFixed(1)}× |\n`,
  );
}
renderer.stop();
