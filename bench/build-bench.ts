import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { UsageError } from '../src/cli/usage-error.ts';
import { KaddonError } from '../src/core/errors.ts';
import { EMPTY_CONFIG_VALUES } from '../src/core/values.ts';
import { loadJqEngine, type JqEngine } from '../src/jq/jq-engine.ts';
import { buildTree } from '../src/runtime/build/build-tree.ts';
import type { RenderTreeResult } from '../src/runtime/build/render-tree.ts';
import {
  CROSS_CUTTING_MODULES,
  generateModulesTree,
  removeModulesTree,
  type GeneratedModulesTree,
} from './generate-modules.ts';
import { runBuild, timeBuildCommand, type BuildCommand } from './measure-build.ts';

const usage = `Usage: npm run bench:build -- [--modules 25,50,100,200] [--runs 3]

Renders generated modules trees of each size (modules) with \`kaddon build\`, as a child process
and in this process, checks the objects each module prints, and prints median wall times.`;

interface BenchOptions {
  readonly modules: readonly number[];
  readonly runs: number;
}

/** Median seconds for one tree size; a figure is undefined when its build failed. */
interface SizeTiming {
  readonly modules: number;
  readonly enabled: number;
  readonly objects: number;
  readonly process: number | undefined;
  readonly inProcess: number | undefined;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sharedComponentRoots = [path.join(repoRoot, 'components')];
const kaddonBuild: BuildCommand = { file: process.execPath, args: ['bin/kaddon.js', 'build'], cwd: repoRoot };
// The output check also fails on a reference the generator left unresolved.
const kaddonStrictBuild: BuildCommand = { ...kaddonBuild, args: [...kaddonBuild.args, '--strict'] };
const MARKER = /^# module: (.+)$/gm;

function parseOptions(argv: readonly string[]): BenchOptions {
  const values = parseFlags(argv);
  const modules = values.modules
    .split(',')
    .map((size) => parseCount(size, '--modules', CROSS_CUTTING_MODULES + 1));
  return { modules, runs: parseCount(values.runs, '--runs', 1) };
}

function parseFlags(argv: readonly string[]): { modules: string; runs: string } {
  try {
    return parseArgs({
      args: [...argv],
      options: { modules: { type: 'string', default: '100' }, runs: { type: 'string', default: '3' } },
    }).values;
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
}

function parseCount(text: string, flag: string, minimum: number): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < minimum) {
    throw new UsageError(`${flag} takes whole numbers of at least ${String(minimum)}, not '${text}'`, usage);
  }
  return value;
}

/** Differences between the objects each module should print and `printed`, by module name. */
function describeCountMismatches(tree: GeneratedModulesTree, printed: ReadonlyMap<string, number>): string[] {
  const expected = new Map(tree.modules.map((module) => [module.name, module.objects]));
  const names = new Set([...expected.keys(), ...printed.keys()]);
  return [...names]
    .filter((name) => (expected.get(name) ?? 0) !== (printed.get(name) ?? 0))
    .map(
      (name) => `${name}: expected ${String(expected.get(name) ?? 0)}, got ${String(printed.get(name) ?? 0)}`,
    );
}

function countMarkers(stdout: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, name] of stdout.matchAll(MARKER)) counts.set(name!, (counts.get(name!) ?? 0) + 1);
  return counts;
}

/** Runs `kaddon build --strict` once; true when it succeeds and prints the expected objects. */
function verifyProcessOutput(tree: GeneratedModulesTree): boolean {
  const output = runBuild(kaddonStrictBuild, tree.modulesDir);
  if (output.failure !== undefined) {
    console.log(`  kaddon build failed: ${output.failure}`);
    return false;
  }
  const printed = countMarkers(output.stdout);
  const mismatches = describeCountMismatches(tree, printed);
  const total = [...printed.values()].reduce((sum, count) => sum + count, 0);
  if (mismatches.length === 0) console.log(`  kaddon build printed ${String(total)} objects, as expected`);
  else
    console.log(`  OBJECT COUNTS DIFFER in ${String(mismatches.length)} modules: ${mismatches.join('; ')}`);
  return mismatches.length === 0;
}

/** Tree load and render, as `kaddon build` wires them, without printing. */
function renderInProcess(modulesDir: string, jq: JqEngine): Promise<RenderTreeResult> {
  return buildTree({
    dirs: [modulesDir],
    config: EMPTY_CONFIG_VALUES,
    globalHooksDir: undefined,
    sharedComponentRoots,
    jq,
  });
}

function describeInProcessResult(tree: GeneratedModulesTree, result: RenderTreeResult): string[] {
  const printed = new Map([...result.rendered.slices].map(([name, resources]) => [name, resources.length]));
  const problems = describeCountMismatches(tree, printed);
  if (result.unresolved.length > 0)
    problems.push(`${String(result.unresolved.length)} unresolved references`);
  return problems;
}

/**
 * Median seconds of `runs` in-process renders. The first also pays for JIT warm-up; the median of
 * three or more runs leaves it out.
 */
async function timeInProcess(
  tree: GeneratedModulesTree,
  jq: JqEngine,
  runs: number,
): Promise<number | undefined> {
  const seconds: number[] = [];
  let result: RenderTreeResult | undefined;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    result = await renderInProcess(tree.modulesDir, jq);
    seconds.push((performance.now() - start) / 1000);
  }
  const problems = result ? describeInProcessResult(tree, result) : [];
  if (problems.length > 0) console.log(`  IN-PROCESS RENDER DIFFERS: ${problems.join('; ')}`);
  return problems.length === 0 ? median(seconds) : undefined;
}

async function measureInProcess(
  tree: GeneratedModulesTree,
  jq: JqEngine,
  runs: number,
): Promise<number | undefined> {
  try {
    return await timeInProcess(tree, jq, runs);
  } catch (error: unknown) {
    const message = error instanceof KaddonError ? error.describe() : String(error);
    console.log(`  kaddon in-process render failed: ${message}`);
    return undefined;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

async function benchSize(size: number, options: BenchOptions, jq: JqEngine): Promise<SizeTiming> {
  const tree = generateModulesTree(size);
  try {
    const enabled = tree.modules.filter((module) => module.enabled).length;
    const objects = tree.modules.reduce((sum, module) => sum + module.objects, 0);
    console.log(`${String(size)} modules: ${String(enabled)} enabled, ${String(objects)} objects expected`);
    const isOutputRight = verifyProcessOutput(tree);
    return {
      modules: size,
      enabled,
      objects,
      process: isOutputRight ? timeBuildCommand(kaddonBuild, tree.modulesDir, options.runs) : undefined,
      inProcess: await measureInProcess(tree, jq, options.runs),
    };
  } finally {
    removeModulesTree(tree);
  }
}

interface Column {
  readonly title: string;
  readonly cell: (row: SizeTiming) => string;
}

const seconds = (value: number | undefined): string => (value === undefined ? 'failed' : value.toFixed(3));
const perModule = (value: number | undefined, modules: number): string =>
  value === undefined ? '-' : ((value * 1000) / modules).toFixed(2);

const columns: readonly Column[] = [
  { title: 'modules', cell: (row) => String(row.modules) },
  { title: 'enabled', cell: (row) => String(row.enabled) },
  { title: 'objects', cell: (row) => String(row.objects) },
  { title: 'process s', cell: (row) => seconds(row.process) },
  { title: 'in-process s', cell: (row) => seconds(row.inProcess) },
  { title: 'process ms/module', cell: (row) => perModule(row.process, row.modules) },
  { title: 'in-process ms/module', cell: (row) => perModule(row.inProcess, row.modules) },
];

/** Right-aligned columns, as bench/results-table.ts prints them. */
function formatTable(rows: readonly SizeTiming[]): string {
  const cells = [
    columns.map((column) => column.title),
    ...rows.map((row) => columns.map((c) => c.cell(row))),
  ];
  const widths = columns.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  return cells
    .map((line) => line.map((cell, column) => cell.padStart(widths[column]!)).join('  '))
    .join('\n');
}

function describeSetup(options: BenchOptions): string {
  const runner = existsSync(path.join(repoRoot, 'dist', 'main.js'))
    ? 'compiled dist/'
    : 'TypeScript through tsx';
  return `kaddon build; the process runs ${runner}; median of ${String(options.runs)} runs per figure`;
}

async function runBench(argv: readonly string[]): Promise<void> {
  const options = parseOptions(argv);
  console.log(describeSetup(options));
  const jq = await loadJqEngine();
  const rows: SizeTiming[] = [];
  for (const size of options.modules) rows.push(await benchSize(size, options, jq));
  console.log(`\nwall seconds (median) and milliseconds per module\n${formatTable(rows)}`);
}

try {
  await runBench(process.argv.slice(2));
} catch (error: unknown) {
  if (!(error instanceof KaddonError)) throw error;
  console.error(`Error: ${error.describe()}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
