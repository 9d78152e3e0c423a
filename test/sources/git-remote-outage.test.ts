import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeGitFixture, MODULES, waitFor } from './git-fixture.ts';
import { startGitDaemon } from './git-servers.ts';
import { openSource } from './source-harness.ts';

describe('GitModulesSource over git daemon', () => {
  it('keeps the last good revision while the server is down, backs off, and recovers when it returns', async () => {
    const repo = makeGitFixture('git-daemon');
    let daemon = await startGitDaemon(repo.serverRoot);
    repo.write(MODULES);
    const first = repo.commit('initial');
    const sut = await openSource({ MODULES_GIT_URL: daemon.url('origin.git') });
    try {
      const seen: string[] = [];
      await sut.source.start((revision) => {
        seen.push(revision.sha);
      });
      assert.deepEqual(seen, [first]);

      await daemon.stop();
      repo.write({ 'modules/010-app/values.yaml': 'app:\n  greeting: while-down\n' });
      const next = repo.commit('while the server is down');
      const error = await waitFor('the failure', () => sut.source.status().lastError);
      assert.match(error, /cannot be listed/);
      assert.equal(sut.source.current()?.sha, first);
      assert.ok(
        sut.logger.entries.some((e) => e.level === 'error' && /retrying with backoff/.test(e.msg)),
        'the failure is logged',
      );

      daemon = await startGitDaemon(repo.serverRoot, daemon.port);
      await waitFor('the recovery', () => (seen[1] === next ? true : undefined));
      assert.equal(sut.source.status().lastError, undefined);
      assert.match(await sut.metrics.registry.metrics(), /addon_operator_git_sync_errors_total [1-9]/);
    } finally {
      await sut.remove();
      await daemon.stop();
      repo.remove();
    }
  });
});
