import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BuildCommand } from './measure-build.ts';

/**
 * Bundles src/ with scripts/build.mjs into bench/out/dist (gitignored), as `npm run build` makes
 * dist/ for the package, and returns the command that runs `kaddon kustomize` from it. Through tsx
 * the sources are compiled at every start, which would swamp the build times; the benchmark makes
 * its own copy, fresh, so that it never depends on the state of the checkout's dist/. `node` is
 * the Node binary that runs it: this process's, or another given with --node.
 */
export function compileKaddon(repoRoot: string, node = process.execPath): BuildCommand {
  const outDir = path.join(repoRoot, 'bench', 'out', 'dist');
  const result = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', outDir], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const main = path.join(outDir, 'main.js');
  if (result.status !== 0 || !existsSync(main)) {
    throw new Error(
      `scripts/build.mjs did not bundle ${main}: ${result.error?.message ?? firstLines(result.stderr)}`,
    );
  }
  return { file: node, args: [main, 'kustomize'], cwd: repoRoot };
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 6).join('\n  ');
}
