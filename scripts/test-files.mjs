// The suite's test files, for scripts/run-tests.mjs (`npm test`) and scripts/test-times.mjs: one
// list, so that the timing script measures exactly the files `npm test` runs.
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every `*.test.ts` under test/ and src/ of `root`, as paths relative to it, sorted. */
export function testFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.test.ts')) found.push(relative);
    }
  };
  walk('test');
  walk('src');
  return found.sort();
}
