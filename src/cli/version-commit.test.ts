import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { gitCommit } from './version.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'kaddon-version-commit-'));
after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

describe('the commit `kaddon version` prints', () => {
  const repo = path.join(scratch, 'repo');
  git(scratch, 'init', '-q', '-b', 'main', repo);
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', 'a.txt');
  git(repo, 'commit', '-q', '-m', 'a');
  const head = git(repo, 'rev-parse', 'HEAD');

  it('is HEAD of a checkout, from a loose ref and from packed-refs', () => {
    assert.equal(gitCommit(repo), head.slice(0, 12));
    git(repo, 'pack-refs', '--all');
    assert.equal(gitCommit(repo), head.slice(0, 12));
  });

  it('is HEAD of a worktree, on a branch of its own and detached', () => {
    const branch = path.join(scratch, 'on-branch');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', branch);
    assert.equal(gitCommit(branch), head.slice(0, 12));
    const detached = path.join(scratch, 'detached');
    git(repo, 'worktree', 'add', '-q', '--detach', detached);
    assert.equal(gitCommit(detached), head.slice(0, 12));
  });

  it('is none outside a checkout', () => {
    assert.equal(gitCommit(scratch), undefined);
  });
});
