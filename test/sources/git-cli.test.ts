import assert from 'node:assert/strict';
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../run-cli.ts';
import { makeGitFixture, MODULES, type GitFixture } from './git-fixture.ts';

describe('kaddon sync and kaddon build with a Git source', () => {
  let repo: GitFixture;
  let cacheDir: string;
  let sha: string;
  before(() => {
    repo = makeGitFixture('git-cli');
    repo.write(MODULES);
    sha = repo.commit('initial');
    cacheDir = mkdtempSync(path.join(tmpdir(), 'kaddon-git-cli-cache-'));
  });
  after(() => {
    rmSync(cacheDir, { recursive: true, force: true });
    repo.remove();
  });
  const gitFlags = (): string[] => [
    '--git-url',
    repo.fileUrl,
    '--git-subpath',
    'modules',
    '--git-cache-dir',
    cacheDir,
  ];

  it('sync prints the revision and its modules directory, and exits 0', async () => {
    const run = await runCli(['sync', ...gitFlags()]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `revision: ${sha}\ndirectory: ${path.join(cacheDir, 'revisions', sha, 'modules')}\n`,
    );
  });

  it('sync exits 1 naming the file when the revision is refused, and leaves current alone', async () => {
    repo.write({ 'modules/010-app/kustomization.yaml': 'resources: [nope.yaml]\n' });
    const broken = repo.commit('broken');
    const run = await runCli(['sync', ...gitFlags()]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`Error: revision '${broken}': refused, .*010-app`));
    assert.equal(readlinkSync(path.join(cacheDir, 'current')), path.join('revisions', sha));
    const again = await runCli(['sync', '--git-ref', sha, ...gitFlags()]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`revision: ${sha}`));
  });

  it('sync exits 1 with a clear error when the remote does not exist', async () => {
    const run = await runCli([
      'sync',
      '--git-url',
      'file:///nonexistent/repo.git',
      '--git-cache-dir',
      cacheDir,
    ]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /Error: git source 'file:\/\/\/nonexistent\/repo\.git': the remote cannot be listed/,
    );
  });

  it('build --git-url renders the revision of a ref', async () => {
    const run = await runCli(['build', ...gitFlags(), '--git-ref', sha]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /# module: app\n# source: .*revisions\/[0-9a-f]{40}\/modules\/010-app\/configmap\.yaml/,
    );
    assert.match(run.stdout, /greeting: hello/);
  });

  it('build refuses a modules directory and --git-url together', async () => {
    const run = await runCli(['build', repo.root, ...gitFlags()]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /not both/);
  });
});
