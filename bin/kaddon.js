#!/usr/bin/env node
// The `kaddon` executable. An installed package runs its compiled dist/. A development checkout (it
// has tsconfig.json) runs dist/ only while dist/ is at least as new as every source file, and the
// TypeScript sources through tsx otherwise, so an edit is never hidden by an old build (README,
// "Development").
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = `${root}dist/main.js`;
const stamp = `${root}dist/.build-stamp`;
const checkout = existsSync(`${root}tsconfig.json`);

/** The newest modification time of the .ts files under `dir`, in milliseconds. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

function isBuildCurrent() {
  if (!existsSync(compiled)) return false;
  if (!checkout) return true;
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(`${root}src`);
}

let entry;
if (isBuildCurrent()) {
  // A bug report's stack trace (exit 70) names src/ files and lines: src/cli/source-stack.ts reads
  // the bundle's source maps then, which costs nothing on a start that has no bug to report.
  entry = await import(compiled);
} else if (checkout) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import('../src/main.ts');
} else {
  process.stderr.write('kaddon: the package has no dist/main.js: it is incomplete. Install it again.\n');
  process.exit(70);
}
await entry.runCli();
