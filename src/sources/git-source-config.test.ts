import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGitSourceConfig } from './git-source-config.ts';
import { GitSourceError } from './git-source-error.ts';

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
      error({ MODULES_GIT_URL: 'x', MODULES_GIT_SUBPATH: '../up' }).message,
      /leaves the repository/,
    );
    assert.match(
      error({ MODULES_GIT_URL: 'x', MODULES_GIT_POLL_INTERVAL: '10' }).message,
      /MODULES_GIT_POLL_INTERVAL/,
    );
    assert.match(
      error({ MODULES_GIT_URL: 'x', MODULES_GIT_TOKEN_FILE: '/nonexistent' }).message,
      /does not exist/,
    );
  });
});
