import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { BuildCommand } from './measure-build.ts';

/**
 * Compiles src/ with tsc into bench/out/dist (gitignored) and returns the command that runs
 * `kaddon kustomize` from it. Through tsx the sources are compiled at every start, which would swamp
 * the build times; the benchmark compiles its own copy, fresh, so that it never depends on the state of
 * the checkout's dist/.
 */
export function compileKaddon(repoRoot: string): BuildCommand {
  const outDir = path.join(repoRoot, 'bench', 'out', 'dist');
  rmSync(outDir, { recursive: true, force: true });
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const main = path.join(outDir, 'main.js');
  if (!existsSync(main)) {
    throw new Error(`tsc did not compile ${main}: ${result.error?.message ?? firstLines(result.stdout)}`);
  }
  // tsc emits despite type errors; what it emitted still runs, so say so and go on.
  if (result.status !== 0)
    console.log(`tsc reported errors, timing what it emitted:\n  ${firstLines(result.stdout)}`);
  return { file: process.execPath, args: [main, 'kustomize'], cwd: repoRoot };
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 6).join('\n  ');
}
