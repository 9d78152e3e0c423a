#!/usr/bin/env node
// The test runner behind `npm test` and `npm run test:unit` (docs/testing.md "Layers" and
// "Running the suite").
//
//   node scripts/run-tests.mjs [--layer unit|cluster|all] [--concurrency N] [--isolate] [--list] [--record] [FILE ...]
//
// Each test file is put in a layer by what it reaches through its imports: `browser` (Debian's
// chromium through playwright-core), `controllers` (a test cluster with kube-controller-manager,
// kube-scheduler and KWOK), `cluster` (a test cluster's kube-apiserver and etcd, or the helm
// binary) or `unit` (none of these). `--layer unit` runs the unit layer only; `--layer cluster`
// everything else; `all` (the default) every file.
//
// dist/ is built first (scripts/build.mjs). Files run in parallel, `--concurrency` at a time (default: twice the cores, at least 2, or
// KADDON_TEST_CONCURRENCY), the slowest first as test/durations.json last recorded them, so the
// long ones do not start last and leave the other workers idle at the end. `--record` rewrites
// that file from this run. The unit layer's files share a few processes (`--isolate`: one each,
// as node's runner does by default). `--list` prints each file's layer and recorded seconds, and runs
// nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { parseArgs } from 'node:util';
import { testFiles } from './test-files.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

// The test files are TypeScript: their processes need tsx, and they take this process's node
// options. Started without it (`node scripts/run-tests.mjs`), this script runs itself again with it.
if (!process.execArgv.includes('tsx')) {
  const again = spawnSync(process.execPath, ['--import', 'tsx', ...process.argv.slice(1)], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(again.status ?? 1);
}
const durationsFile = path.join(root, 'test/durations.json');
const layers = ['unit', 'cluster', 'controllers', 'browser'];

const { values, positionals } = parseArgs({
  options: {
    layer: { type: 'string', default: 'all' },
    concurrency: { type: 'string' },
    list: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    isolate: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (!['unit', 'cluster', 'all'].includes(values.layer)) {
  process.stderr.write(`--layer ${values.layer}: use unit, cluster or all\n`);
  process.exit(1);
}
const concurrency = Number(
  values.concurrency ?? process.env.KADDON_TEST_CONCURRENCY ?? Math.max(2, os.availableParallelism() * 2),
);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write(`--concurrency ${String(concurrency)}: use a whole number of 1 or more\n`);
  process.exit(1);
}

const importPattern = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/gu;
/** What each repository file reaches through its imports, memoized: its layer. */
const reached = new Map();

function layerOf(file) {
  const known = reached.get(file);
  if (known !== undefined) return known;
  reached.set(file, 'unit'); // an import cycle adds nothing
  let text = '';
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    return 'unit';
  }
  let layer = 'unit';
  const raise = (to) => {
    if (layers.indexOf(to) > layers.indexOf(layer)) layer = to;
  };
  if (/withControllers:\s*true/u.test(text)) raise('controllers');
  if (file === 'test/cluster/cluster-binaries.ts' || file === 'test/cluster/ensure-helm.ts') raise('cluster');
  for (const [, specifier] of text.matchAll(importPattern)) {
    if (specifier === 'playwright-core') raise('browser');
    if (!specifier.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    raise(layerOf(target));
  }
  reached.set(file, layer);
  return layer;
}

function recordedSeconds() {
  try {
    return JSON.parse(readFileSync(durationsFile, 'utf8'));
  } catch {
    return {};
  }
}

const recorded = recordedSeconds();
const all =
  positionals.length > 0
    ? positionals.map((file) => path.relative(root, path.resolve(file)))
    : testFiles(root);
const selected = all.filter((file) => {
  const layer = layerOf(file);
  return values.layer === 'all' || (values.layer === 'unit') === (layer === 'unit');
});
// Slowest first; a file with no record yet is taken for a slow one.
const bySeconds = (a, b) => (recorded[b] ?? Infinity) - (recorded[a] ?? Infinity) || a.localeCompare(b);
const ordered = [...selected].sort(bySeconds);

if (values.list) {
  for (const file of ordered)
    process.stdout.write(
      `${layerOf(file).padEnd(12)} ${String(recorded[file] ?? '?').padStart(6)} s  ${file}\n`,
    );
  process.exit(0);
}

// Tests run `bin/kaddon.js` as a user does; it runs dist/ only while dist/ is newer than src/ and
// compiles the sources through tsx at every start otherwise. Building first (about 2 s) keeps
// those starts as cheap as an installed kaddon's.
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// The chart renderer, as `npm ci` builds it where Go is installed (kept when up to date, a few
// seconds to link otherwise): chart modules in the tests are rendered as an installed kaddon does.
const rendererBuilt = spawnSync(process.execPath, ['scripts/build-chart-renderer.mjs'], {
  cwd: root,
  stdio: 'inherit',
});
if (rendererBuilt.status !== 0) process.exit(rendererBuilt.status ?? 1);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'kaddon-run-tests-'));

/**
 * The unit layer's files run in `concurrency` processes, not one each: a process costs about a
 * second of CPU time to start with tsx, more than most unit files take (docs/testing.md "Running
 * the suite"). Each bundle is an entry file that imports its test files, balanced by their
 * recorded seconds, slowest first into the emptiest bundle. `--isolate` runs every file alone.
 */
function bundleUnitFiles(files) {
  const unit = files.filter((file) => layerOf(file) === 'unit');
  if (values.isolate || unit.length < 2) return files;
  const bundles = Array.from({ length: Math.min(concurrency, unit.length) }, () => ({
    files: [],
    seconds: 0,
  }));
  for (const file of [...unit].sort(bySeconds)) {
    const emptiest = bundles.reduce((least, bundle) => (bundle.seconds < least.seconds ? bundle : least));
    emptiest.files.push(file);
    emptiest.seconds += recorded[file] ?? 10;
  }
  const seconds = { ...recorded };
  const entries = files.filter((file) => layerOf(file) !== 'unit');
  bundles.forEach((bundle, index) => {
    const entry = path.join(scratch, `unit-${String(index + 1)}.test.mts`);
    const imports = bundle.files.map((file) => `import ${JSON.stringify(path.join(root, file))};\n`);
    writeFileSync(entry, imports.join(''));
    seconds[entry] = bundle.seconds;
    entries.push(entry);
  });
  return entries.sort((a, b) => (seconds[b] ?? Infinity) - (seconds[a] ?? Infinity));
}
const entries = bundleUnitFiles(ordered);
process.stdout.write(
  `${String(ordered.length)} test files (${values.layer === 'all' ? 'every layer' : `layer ${values.layer}`}) in ${String(entries.length)} processes, ${String(concurrency)} at a time\n`,
);
// node's runner started from its command line sorts the files by name; its `run()` keeps the order
// given, so the slowest start first. Each file's process gets this process's node options
// (`--import tsx`, added by the re-run above).
const stream = run({ files: entries.map((entry) => path.resolve(root, entry)), concurrency });
const seconds = new Map();
let failed = false;
stream.on('test:fail', (data) => {
  if (!data.todo) failed = true;
});
for (const type of ['test:pass', 'test:fail'])
  stream.on(type, (data) => {
    if (data.nesting !== 0 || data.file === undefined) return;
    const file = path.relative(root, data.file);
    seconds.set(file, (seconds.get(file) ?? 0) + data.details.duration_ms / 1000);
  });
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  if (values.record) {
    // Only the repository's test files are kept: a file deleted or renamed drops out.
    const known = new Set(testFiles(root));
    const kept = Object.entries(recorded).filter(([file]) => known.has(file));
    const merged = { ...Object.fromEntries(kept) };
    for (const [file, total] of seconds) if (known.has(file)) merged[file] = Math.round(total * 10) / 10;
    const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(durationsFile, JSON.stringify(sorted, null, 2) + '\n');
  }
  rmSync(scratch, { recursive: true, force: true });
  process.exitCode = failed ? 1 : 0;
});
