import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { corpusCasesDir } from '../repo-root.ts';

/**
 * `tsx test/conformance/record-real-world.ts --checkout DIR --project NAME --repository OWNER/NAME
 * --commit SHA --license SPDX ENTRY...`: builds each entry of a project's checkout with
 * `kubectl kustomize` under strace, copies exactly the files the builds opened (and the project's
 * LICENSE and NOTICE) into corpus/real-world/cases/NAME/input, and records each output as
 * expected/<entry with / as __>.yaml. A build that fails is reported and left out.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    checkout: { type: 'string' },
    project: { type: 'string' },
    repository: { type: 'string' },
    commit: { type: 'string' },
    license: { type: 'string' },
  },
});
const checkout = path.resolve(values.checkout ?? '.');
const caseDir = path.join(corpusCasesDir('real-world'), values.project ?? 'project');

/** The files under the checkout that one build opened, relative to it. */
function filesRead(entry: string, expected: string): string[] | undefined {
  const trace = path.join(tmpdir(), `real-world-${process.pid}.strace`);
  try {
    const output = execFileSync(
      'strace',
      ['-f', '-qq', '-e', 'trace=openat', '-o', trace, 'kubectl', 'kustomize', entry],
      { cwd: checkout, encoding: 'utf8', stdio: 'pipe', maxBuffer: 1 << 28 },
    );
    writeFileSync(expected, output);
  } catch (error: unknown) {
    console.log(`${entry}: kubectl failed, left out (${String(error).split('\n')[0] ?? ''})`);
    return undefined;
  } finally {
    if (!existsSync(trace)) writeFileSync(trace, '');
  }
  const opened = new Set<string>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const match = /openat\(AT_FDCWD, "([^"]+)", ([A-Z_|]+)/.exec(line);
    if (!match || line.includes('= -1') || match[2]?.includes('O_DIRECTORY')) continue;
    const file = path.resolve(checkout, match[1] ?? '');
    if (file.startsWith(`${checkout}/`)) opened.add(path.relative(checkout, file));
  }
  rmSync(trace, { force: true });
  return [...opened];
}

mkdirSync(path.join(caseDir, 'expected'), { recursive: true });
const entries: string[] = [];
for (const entry of positionals) {
  const expected = path.join(caseDir, 'expected', `${entry.replaceAll('/', '__')}.yaml`);
  const files = filesRead(entry, expected);
  if (files === undefined) continue;
  for (const file of files) {
    mkdirSync(path.dirname(path.join(caseDir, 'input', file)), { recursive: true });
    copyFileSync(path.join(checkout, file), path.join(caseDir, 'input', file));
  }
  entries.push(entry);
}
for (const notice of ['LICENSE', 'NOTICE'])
  if (existsSync(path.join(checkout, notice)))
    copyFileSync(path.join(checkout, notice), path.join(caseDir, notice));
const source = { repository: values.repository, commit: values.commit, license: values.license, entries };
writeFileSync(path.join(caseDir, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
