import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { stringifyYamlStream } from '../src/core/yaml/yaml.ts';
import { loadKustomization } from '../src/loader/kustomization-loader.ts';
import { buildKustomization } from '../src/pipeline/build-kustomization.ts';

/** A command that builds a kustomization directory given as its last argument. */
export interface BuildCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** What one run of a build command printed; `failure` says why it did not succeed. */
export interface CommandOutput {
  readonly stdout: string;
  readonly failure?: string;
}

const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

export function runBuild(command: BuildCommand, dir: string): CommandOutput {
  const result = spawnSync(command.file, [...command.args, dir], {
    cwd: command.cwd,
    encoding: 'utf8',
    maxBuffer: MAX_OUTPUT_BYTES,
  });
  if (result.error) return { stdout: '', failure: result.error.message };
  if (result.status !== 0)
    return { stdout: result.stdout, failure: `exit ${String(result.status)}: ${firstLines(result.stderr)}` };
  return { stdout: result.stdout };
}

/** A crash prints a stack; its head is enough to say what failed. */
function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 6).join('\n    ');
}

/** Median wall seconds of `runs` runs, stdout discarded; undefined when a run fails. */
export function timeBuildCommand(command: BuildCommand, dir: string, runs: number): number | undefined {
  const seconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const result = spawnSync(command.file, [...command.args, dir], { cwd: command.cwd, stdio: 'ignore' });
    seconds.push((performance.now() - start) / 1000);
    if (result.error ?? result.status !== 0) return undefined;
  }
  return median(seconds);
}

/**
 * The fastest wall seconds of `runs` runs of each command, the commands taking turns run by run;
 * undefined for a command that fails.
 */
export function fastestAlternating(
  commands: readonly BuildCommand[],
  dir: string,
  runs: number,
): (number | undefined)[] {
  const fastest: (number | undefined)[] = commands.map(() => Infinity);
  for (let run = 0; run < runs; run++) {
    commands.forEach((command, index) => {
      if (fastest[index] === undefined) return;
      const start = performance.now();
      const result = spawnSync(command.file, [...command.args, dir], { cwd: command.cwd, stdio: 'ignore' });
      const seconds = (performance.now() - start) / 1000;
      fastest[index] =
        (result.error ?? result.status !== 0) ? undefined : Math.min(fastest[index] ?? seconds, seconds);
    });
  }
  return fastest;
}

/** kaddon's load, build and stringify in this process: the CLI without node's start-up and module loading. */
function buildInProcess(dir: string): string {
  const { node } = loadKustomization(dir);
  const result = buildKustomization(node);
  return stringifyYamlStream(result.resources.map((resource) => resource.obj));
}

/**
 * Median seconds of `runs` in-process builds. The first build also pays for JIT warm-up; the median
 * of three or more runs leaves it out, so the figure is the engine's steady state.
 */
export function timeInProcess(dir: string, runs: number): number {
  const seconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    buildInProcess(dir);
    seconds.push((performance.now() - start) / 1000);
  }
  return median(seconds);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}
