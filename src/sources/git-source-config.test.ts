import { tmpdir } from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGitSourceConfig } from './git-source-config.ts';
import { GitSourceError } from './git-source-error.ts';

/** A path under a folder that was never made: no other process can have created it. */
const MISSING_FILE = path.join(
  tmpdir(),
  `kaddon-never-made-${String(process.pid)}-${String(Date.now())}`,
  'token',
);
describe('loadGitSourceConfig', () => {
  it('reads the environment; flags win', () => {
    const config = loadGitSourceConfig(
      {
        MODULES_GIT_URL: 'https://example.com/a.git',
        MODULES_GIT_REF: 'main',
        MODULES_GIT_POLL_INTERVAL: '5m',
      },
      { 'git-ref': 'v1.2.0', 'git-subpath': './deploy/modules/' },
    );
    assert.equal(config.ref, 'v1.2.0');
    assert.equal(config.subpath, 'deploy/modules');
    assert.equal(config.pollIntervalMs, 300_000);
  });

  it('refuses a poll interval above 576h, which no timer holds (docs/lifecycle.md "Bounds and timeouts")', () => {
    const url = 'https://example.com/a.git';
    assert.throws(
      () => loadGitSourceConfig({ MODULES_GIT_URL: url, MODULES_GIT_POLL_INTERVAL: '720h' }),
      (error: unknown) =>
        error instanceof GitSourceError &&
        /MODULES_GIT_POLL_INTERVAL.*'720h' is longer than 576h \(24 days\)/.test(error.message),
    );
    const longest = loadGitSourceConfig({ MODULES_GIT_URL: url, MODULES_GIT_POLL_INTERVAL: '576h' });
    assert.equal(longest.pollIntervalMs, 576 * 3_600_000);
  });

  it('names the flag and the variable to fix', () => {
    const error = (env: Record<string, string>): GitSourceError => {
      try {
        loadGitSourceConfig(env);
      } catch (caught: unknown) {
        if (caught instanceof GitSourceError) return caught;
      }
      throw new Error('no GitSourceError');
    };
    assert.match(error({}).message, /'--git-url' \/ 'MODULES_GIT_URL': is not set/);
    assert.match(
      error({ MODULES_GIT_URL: 'https://git.example.com/m.git', MODULES_GIT_SUBPATH: '../up' }).message,
      /leaves the repository/,
    );
    assert.match(
      error({ MODULES_GIT_URL: 'https://git.example.com/m.git', MODULES_GIT_POLL_INTERVAL: '10' }).message,
      /MODULES_GIT_POLL_INTERVAL/,
    );
    assert.match(
      error({ MODULES_GIT_URL: 'https://git.example.com/m.git', MODULES_GIT_TOKEN_FILE: MISSING_FILE })
        .message,
      /does not exist/,
    );
    for (const [url, problem] of [
      ['--upload-pack=touch /tmp/pwned', /looks like a git option/],
      ['ext::sh -c touch% /tmp/pwned', /holds whitespace|is not a repository URL/],
      ['fd::17', /is not a repository URL kaddon reads/],
      ['/srv/modules.git', /is not a repository URL kaddon reads/],
      ['https://host/repo\nmore', /holds whitespace or control characters/],
    ] as const)
      assert.match(error({ MODULES_GIT_URL: url }).message, problem, url);
    for (const url of [
      'https://h/r.git',
      'ssh://git@h/r.git',
      'git@github.com:org/repo.git',
      'git://h/r',
      'file:///srv/r',
    ])
      assert.equal(loadGitSourceConfig({ MODULES_GIT_URL: url }).url, url);
  });
});
