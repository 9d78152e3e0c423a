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

  it('prints JSON with -o json, and refuses an unknown flag or format', async () => {
    const run = await runCli(['version', '-o', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout) as { version: string; node: string };
    assert.equal(printed.node, process.version);
    const bogus = await runCli(['version', '--bogus']);
    assert.equal(bogus.code, 2);
    assert.equal(
      bogus.stderr,
      "Error: command line: Unknown option '--bogus'. Run `kaddon version --help` for its options.\n",
    );
    const yaml = await runCli(['version', '-o', 'yaml']);
    assert.equal(yaml.code, 2);
    assert.match(yaml.stderr, /--output must be text or json, not 'yaml'/);
  });
});

describe('kaddon help', () => {
  it("prints a command's own usage for `help CMD`, as for `CMD --help`", async () => {
    for (const command of ['build', 'diff', 'kustomize', 'rbac', 'sync', 'version', 'queue']) {
      const viaHelp = await runCli(['help', command]);
      const viaFlag = await runCli([command, '--help']);
      assert.equal(viaHelp.code, 0, viaHelp.stderr);
      assert.equal(viaHelp.stdout, viaFlag.stdout);
      assert.match(viaHelp.stdout, new RegExp(`^Usage: kaddon ${command}`));
    }
  });
});
