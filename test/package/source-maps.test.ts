import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../repo-root.ts';

const outdir = mkdtempSync(path.join(tmpdir(), 'kaddon-bundle-'));
after(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('the bundle in dist/', () => {
  it('an internal error inside the bundled CLI has a stack trace that names src/ files and lines', () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs'), '--outdir', outdir]);
    writeFileSync(path.join(outdir, 'package.json'), '{"type":"module"}\n');
    // A broken stdout makes `version` fail inside the bundle: exit 70 with the stack on stderr.
    const script = [
      `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(outdir, 'main.js')).href)});`,
      "let stderr = '';",
      "const code = await main(['version'], { stdout: undefined, stderr: (text) => (stderr += text) });",
      'console.log(JSON.stringify({ code, stderr }));',
    ].join('\n');
    // Node's own source-map support stays off, as bin/kaddon.js leaves it: kaddon maps the trace.
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    const { code, stderr } = JSON.parse(printed) as { code: number; stderr: string };
    assert.equal(code, 70);
    assert.match(stderr, /internal error/);
    assert.match(stderr, /src\/cli\/version\.ts:\d+:\d+/);
    const bundleFrames = stderr.split('\n').filter((line) => line.includes(outdir) && /\.js:\d+/.test(line));
    assert.deepEqual(bundleFrames, [], 'no frame of kaddon is left in the bundle');
  });
});
