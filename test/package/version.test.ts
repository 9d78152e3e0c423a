import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';

describe('kaddon version', () => {
  it('prints the package version and the commit of the checkout, for --version too', async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    for (const argv of [['version'], ['--version']]) {
      const run = await runCli(argv);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `kaddon ${version} (commit ${head.slice(0, 12)}) node ${process.version}\n`);
    }
  });
});
