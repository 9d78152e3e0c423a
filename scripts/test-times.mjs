#!/usr/bin/env node
// Where the suite's time goes (docs/testing.md "Where the time goes"): runs each test file alone,
// as `npm test` runs it, and ranks the files by wall time, with the CPU time the file and every
// process under it used (user + system, the test clusters' servers included) and the share of the
// wall time that was waiting rather than computing, and each file's slowest test.
//
//   node scripts/test-times.mjs [--top 40] [FILE ...]     (default: every file `npm test` runs)
//
// Prints a Markdown table. Run it on a quiet machine: figures taken beside other work are not the
// suite's.
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { testFiles } from './test-files.mjs';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '40' } },
  allowPositionals: true,
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const files = positionals.length > 0 ? positionals : testFiles(root);

const scratch = mkdtempSync(path.join(tmpdir(), 'kaddon-test-times-'));
const reporter = path.join(scratch, 'reporter.mjs');
const results = path.join(scratch, 'tests.jsonl');
// Each finished test at any depth, with its file and duration, one JSON line each.
writeFileSync(
  reporter,
  `import { appendFileSync } from 'node:fs';
export default async function* (source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details } = event.data;
    appendFileSync(${JSON.stringify(results)}, JSON.stringify({ file, name, nesting, ms: details.duration_ms, suite: details.type === 'suite', failed: event.type === 'test:fail' }) + '\\n');
  }
}
`,
);

const rows = [];
for (const file of files) {
  rmSync(results, { force: true });
  const command = `TIMEFORMAT='%R %U %S'; time node --import tsx --test --test-reporter=${reporter} ${JSON.stringify(file)} >/dev/null 2>&1`;
  const run = spawnSync('bash', ['-c', command], { cwd: root, encoding: 'utf8', env: process.env });
  const [wall = 0, user = 0, system = 0] = (run.stderr.trim().split('\n').at(-1) ?? '')
    .split(' ')
    .map(Number);
  let tests = [];
  try {
    tests = readFileSync(results, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    // A file that ran no test (or did not load) wrote nothing.
  }
  const leaves = tests.filter((test) => !test.suite);
  const slowest = [...leaves].sort((a, b) => b.ms - a.ms)[0];
  rows.push({
    file,
    wall,
    cpu: user + system,
    tests: leaves.length,
    failed: tests.some((test) => test.failed),
    slowest: slowest ? `${slowest.name} (${(slowest.ms / 1000).toFixed(1)} s)` : '',
  });
  process.stderr.write(`${file}: ${wall.toFixed(1)} s\n`);
}
rmSync(scratch, { recursive: true, force: true });

rows.sort((a, b) => b.wall - a.wall);
const total = rows.reduce((sum, row) => sum + row.wall, 0);
const cpu = rows.reduce((sum, row) => sum + row.cpu, 0);
console.log(
  `${String(rows.length)} files, ${total.toFixed(0)} s wall one after another, ${cpu.toFixed(0)} s CPU\n`,
);
console.log('| file | tests | wall s | CPU s | waiting | share of the suite | slowest test |');
console.log('|---|---:|---:|---:|---:|---:|---|');
for (const row of rows.slice(0, Number(values.top))) {
  const waiting = row.wall > 0 ? Math.max(0, 1 - row.cpu / row.wall) : 0;
  console.log(
    `| ${row.file}${row.failed ? ' (failed)' : ''} | ${String(row.tests)} | ${row.wall.toFixed(1)} | ${row.cpu.toFixed(1)} | ${(waiting * 100).toFixed(0)} % | ${((row.wall / total) * 100).toFixed(1)} % | ${row.slowest} |`,
  );
}
