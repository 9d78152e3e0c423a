import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * `npm run bench:startup -- [--runs 15]`: the start-up cost of one command, what a user pays for
 * every `kaddon kustomize`, `kaddon build` or `kubectl exec … kaddon queue list`. Times `kaddon
 * kustomize` of a one-object kustomization through bin/kaddon.js (the compiled dist/, built first)
 * against `kubectl kustomize` on the same tree, with node's own start-up and the sources run
 * through tsx (what a development checkout with an old build runs) beside them.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const runs = Number(values.runs);

interface Contender {
  readonly name: string;
  readonly file: string;
  readonly args: readonly string[];
}

function medianSeconds(contender: Contender): number | undefined {
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const start = performance.now();
    const result = spawnSync(contender.file, [...contender.args], { cwd: repoRoot, stdio: 'ignore' });
    if (result.error ?? result.status !== 0) return undefined;
    // The first run warms the file cache and is left out.
    if (run > 0) times.push((performance.now() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');
const tree = mkdtempSync(path.join(tmpdir(), 'kaddon-startup-'));
writeFileSync(path.join(tree, 'kustomization.yaml'), 'resources: [cm.yaml]\nnamePrefix: p-\n');
writeFileSync(
  path.join(tree, 'cm.yaml'),
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n',
);

/** The trees: one object, and the kustomize example (base, component, overlay: patches, generators). */
const trees = [
  { name: 'one-object kustomization', dir: tree },
  { name: 'examples/kustomize/overlays/production', dir: 'examples/kustomize/overlays/production' },
];
console.log(`median of ${String(runs)} runs`);
for (const { name, dir } of trees) {
  const contenders: Contender[] = [
    { name: 'kaddon kustomize (dist)', file: process.execPath, args: ['bin/kaddon.js', 'kustomize', dir] },
    { name: 'kubectl kustomize', file: 'kubectl', args: ['kustomize', dir] },
    { name: 'node -e 0', file: process.execPath, args: ['-e', '0'] },
    {
      name: 'kaddon kustomize (tsx)',
      file: process.execPath,
      args: ['--import', 'tsx', 'src/main.ts', 'kustomize', dir],
    },
  ];
  const timed = contenders.map((contender) => ({ contender, seconds: medianSeconds(contender) }));
  const kubectl = timed[1]?.seconds;
  console.log(`\n${name}`);
  for (const { contender, seconds } of timed) {
    const figure = seconds === undefined ? 'failed' : `${seconds.toFixed(3)} s`;
    const versus =
      seconds === undefined || kubectl === undefined ? '' : `  ${(seconds / kubectl).toFixed(2)}x kubectl`;
    console.log(`${contender.name.padEnd(26)} ${figure.padStart(9)}${versus}`);
  }
}
rmSync(tree, { recursive: true, force: true });
