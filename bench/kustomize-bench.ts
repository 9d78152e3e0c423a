import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { KaddonError } from '../src/core/errors.ts';
import { UsageError } from '../src/cli/usage-error.ts';
import { compileKaddon } from './compile-kaddon.ts';
import { benchRealWorld, summarize } from './corpus-bench.ts';
import { compareObjectOrder, compareObjectStreams, parseObjectStream } from './compare-object-streams.ts';
import { generateTree, removeTree, type GeneratedTree } from './generate-tree.ts';
import { runBuild, timeBuildCommand, timeInProcess, type BuildCommand } from './measure-build.ts';
import { formatGrowthTable, formatTimingTable, type SizeTiming } from './results-table.ts';

const usage = `Usage: npm run bench -- [--sizes 100,300,600,1200] [--runs 3]
       npm run bench -- --corpus real-world [--only TEXT] [--runs 3] [--node PATH]

Builds generated kustomization trees of about each size (objects) with \`kubectl kustomize\`
and kaddon, checks that both print the same objects, and prints median wall times. kaddon's
process runs src/ bundled by scripts/build.mjs into bench/out/dist at the start of the run, as the package runs it.
With --corpus real-world it times both tools on every tree of test/conformance/corpus/real-world
(or those whose name contains --only), taking turns, keeps each one's fastest of --runs runs and
prints each ratio kaddon/kubectl. --node runs kaddon with another Node binary than this one.`;

interface BenchOptions {
  readonly sizes: readonly number[];
  readonly runs: number;
  readonly corpus?: string;
  readonly only?: string;
  readonly node?: string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const kubectl: BuildCommand = { file: 'kubectl', args: ['kustomize'], cwd: repoRoot };

function parseOptions(argv: readonly string[]): BenchOptions {
  const values = parseFlags(argv);
  const sizes = values.sizes.split(',').map((size) => parsePositive(size, '--sizes'));
  if (values.corpus !== undefined && values.corpus !== 'real-world')
    throw new UsageError(`--corpus takes 'real-world', not '${values.corpus}'`, usage);
  return {
    sizes,
    runs: parsePositive(values.runs, '--runs'),
    corpus: values.corpus,
    only: values.only,
    node: values.node,
  };
}

function parseFlags(argv: readonly string[]): {
  sizes: string;
  runs: string;
  corpus?: string;
  only?: string;
  node?: string;
} {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        sizes: { type: 'string', default: '100,300,600,1200' },
        runs: { type: 'string', default: '3' },
        corpus: { type: 'string' },
        only: { type: 'string' },
        node: { type: 'string' },
      },
    }).values;
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
}

function parsePositive(text: string, flag: string): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value <= 0) {
    throw new UsageError(`${flag} takes positive whole numbers, not '${text}'`, usage);
  }
  return value;
}

function isKubectlInstalled(): boolean {
  const result = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** Builds the tree with both tools once and reports the first difference; returns the object count. */
function verifyOutputs(tree: GeneratedTree, kaddon: BuildCommand, withKubectl: boolean): number {
  const ours = runBuild(kaddon, tree.overlay);
  if (ours.failure !== undefined) console.log(`  kaddon failed: ${ours.failure}`);
  const kaddonObjects = ours.failure === undefined ? parseObjectStream(ours.stdout, 'kaddon') : [];
  if (!withKubectl) {
    if (ours.failure === undefined) console.log(`  kaddon printed ${String(kaddonObjects.length)} objects`);
    return kaddonObjects.length || tree.objects;
  }
  const theirs = runBuild(kubectl, tree.overlay);
  if (theirs.failure !== undefined)
    throw new Error(`kubectl kustomize failed on the generated tree: ${theirs.failure}`);
  const kubectlObjects = parseObjectStream(theirs.stdout, 'kubectl');
  if (ours.failure === undefined) reportDifference(kubectlObjects, kaddonObjects);
  return kubectlObjects.length;
}

function reportDifference(kubectlObjects: unknown[], kaddonObjects: unknown[]): void {
  const difference = compareObjectStreams(kubectlObjects, kaddonObjects);
  if (!difference) {
    const order = compareObjectOrder(kubectlObjects, kaddonObjects);
    console.log(`  outputs agree: ${String(kubectlObjects.length)} objects`);
    if (order !== undefined) console.log(`  but in a different order, from ${order}`);
    return;
  }
  const [first, ...others] = difference.examples;
  const counts = `kubectl printed ${String(kubectlObjects.length)}, kaddon ${String(kaddonObjects.length)}`;
  console.log(`  OUTPUTS DIFFER on ${String(difference.differing)} objects (${counts}). First difference:`);
  console.log(`    ${String(first)}`);
  if (others.length > 0)
    console.log(`  other kinds of difference:\n${others.map((text) => `    ${text}`).join('\n')}`);
}

function measureInProcess(dir: string, runs: number): number | undefined {
  try {
    return timeInProcess(dir, runs);
  } catch (error: unknown) {
    const message = error instanceof KaddonError ? error.describe() : String(error);
    console.log(`  kaddon in-process build failed: ${message}`);
    return undefined;
  }
}

function benchSize(
  size: number,
  options: BenchOptions,
  kaddon: BuildCommand,
  withKubectl: boolean,
): SizeTiming {
  const tree = generateTree(size);
  try {
    console.log(`size ${String(size)}: ${String(tree.apps)} apps, ${String(tree.objects)} objects expected`);
    const objects = verifyOutputs(tree, kaddon, withKubectl);
    return {
      objects,
      kubectl: withKubectl ? timeBuildCommand(kubectl, tree.overlay, options.runs) : undefined,
      kaddon: timeBuildCommand(kaddon, tree.overlay, options.runs),
      inProcess: measureInProcess(tree.overlay, options.runs),
    };
  } finally {
    removeTree(tree);
  }
}

function describeSetup(options: BenchOptions, withKubectl: boolean): string {
  const tools = withKubectl
    ? 'kubectl kustomize vs kaddon'
    : 'kubectl not found on PATH: kaddon figures only';
  return `${tools}; kaddon process runs bench/out/dist (src/ bundled as the package is); median of ${String(options.runs)} runs per figure`;
}

function runBench(argv: readonly string[]): void {
  const options = parseOptions(argv);
  const withKubectl = isKubectlInstalled();
  const kaddon = compileKaddon(repoRoot, options.node);
  if (options.corpus !== undefined) {
    if (!withKubectl) throw new UsageError('--corpus compares with kubectl, which is not on PATH', usage);
    const nodeVersion = spawnSync(kaddon.file, ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(
      `real-world corpus, kubectl kustomize vs kaddon (bench/out/dist, Node ${nodeVersion}), fastest of ${String(options.runs)} runs, taking turns`,
    );
    console.log(`\n${summarize(benchRealWorld(kaddon, kubectl, options.runs, options.only))}`);
    return;
  }
  console.log(describeSetup(options, withKubectl));
  const rows = options.sizes.map((size) => benchSize(size, options, kaddon, withKubectl));
  console.log(`\nwall seconds (median) and microseconds per object\n${formatTimingTable(rows, withKubectl)}`);
  if (rows.length > 1) console.log(`\ngrowth between sizes\n${formatGrowthTable(rows, withKubectl)}`);
}

try {
  runBench(process.argv.slice(2));
} catch (error: unknown) {
  if (!(error instanceof KaddonError)) throw error;
  console.error(`Error: ${error.describe()}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
