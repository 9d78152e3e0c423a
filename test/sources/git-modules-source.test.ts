import assert from 'node:assert/strict';
import { readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GitRevision } from '../../src/sources/git-modules-source.ts';
import { makeGitFixture, MODULES, waitFor, type GitFixture } from './git-fixture.ts';
import { openSource, renderedConfigMaps, type SourceUnderTest } from './source-harness.ts';

describe('GitModulesSource over file://', () => {
  let repo: GitFixture;
  let sut: SourceUnderTest;
  const seen: GitRevision[] = [];
  let first: string;

  before(async () => {
    repo = makeGitFixture('git-source');
    repo.write(MODULES);
    first = repo.commit('initial');
    sut = await openSource({ MODULES_GIT_URL: repo.fileUrl });
    await sut.source.start((revision) => {
      seen.push(revision);
    });
  });
  after(async () => {
    await sut.remove();
    repo.remove();
  });

  const nextRevision = (count: number): Promise<GitRevision> =>
    waitFor(`revision #${count}`, () => seen[count - 1]);

  it('starts on the remote default branch and points `current` at its own directory', async () => {
    const revision = sut.source.current();
    assert.equal(revision?.sha, first);
    assert.deepEqual(
      seen.map((r) => r.sha),
      [first],
    );
    assert.equal(revision.modulesDir, path.join(sut.cacheDir, 'revisions', first, 'modules'));
    assert.equal(readlinkSync(path.join(sut.cacheDir, 'current')), path.join('revisions', first));
    assert.deepEqual(await renderedConfigMaps(revision), { app: { greeting: 'hello' }, extra: { x: '1' } });
    assert.equal(sut.source.status().currentRevision, first);
    assert.equal(sut.source.status().lastError, undefined);
    assert.match(
      await sut.metrics.registry.metrics(),
      new RegExp(`addon_operator_git_revision_info\\{revision="${first}"\\} 1`),
    );
  });

  it('picks up a commit that changes a value: the new revision renders differently', async () => {
    repo.write({ 'modules/010-app/values.yaml': 'app:\n  greeting: bonjour\n' });
    const sha = repo.commit('greeting');
    const revision = await nextRevision(2);
    assert.equal(revision.sha, sha);
    assert.deepEqual((await renderedConfigMaps(revision)).app, { greeting: 'bonjour' });
    assert.deepEqual(
      (await renderedConfigMaps(seen[0]!)).app,
      { greeting: 'hello' },
      'the previous revision is untouched',
    );
  });

  it('refuses a broken module, keeps the last good revision, and takes the fix', async () => {
    const good = sut.source.current()!.sha;
    repo.write({ 'modules/020-extra/kustomization.yaml': 'resources: [missing.yaml]\n' });
    const broken = repo.commit('broken');
    const error = await waitFor('the refusal', () => sut.source.status().lastError);
    assert.match(error, /020-extra/);
    assert.equal(sut.source.current()?.sha, good);
    assert.equal(readlinkSync(path.join(sut.cacheDir, 'current')), path.join('revisions', good));
    const logged = sut.logger.entries.find((e) => e.level === 'error' && e.fields.revision === broken);
    assert.ok(logged, 'the refusal is logged with the revision');
    assert.match(String(logged.fields.error), /missing\.yaml/);
    assert.match(await sut.metrics.registry.metrics(), /addon_operator_git_sync_errors_total [1-9]/);

    repo.write({ 'modules/020-extra/kustomization.yaml': 'resources: [configmap.yaml]\n' });
    const fixed = repo.commit('fixed');
    assert.equal((await nextRevision(3)).sha, fixed);
    assert.equal(sut.source.status().lastError, undefined);
    assert.ok(sut.source.status().lastSyncTime);
  });

  it('drops a removed module from the new revision', async () => {
    repo.delete('modules/020-extra');
    const sha = repo.commit('remove extra');
    const revision = await nextRevision(4);
    assert.equal(revision.sha, sha);
    assert.deepEqual(Object.keys(await renderedConfigMaps(revision)), ['app']);
  });

  it('keeps only the current and the previous revision on disk', () => {
    const kept = readdirSync(path.join(sut.cacheDir, 'revisions')).sort();
    assert.deepEqual(kept, [seen[2]!.sha, seen[3]!.sha].sort());
  });

  it('follows a force-push to an older history', async () => {
    repo.git('reset', '--hard', first);
    repo.write({ 'modules/010-app/values.yaml': 'app:\n  greeting: rewritten\n' });
    const sha = repo.commit('rewritten history', { force: true });
    const revision = await nextRevision(5);
    assert.equal(revision.sha, sha);
    assert.deepEqual((await renderedConfigMaps(revision)).app, { greeting: 'rewritten' });
  });

  it('refuses a symlink that leaves the checkout, and accepts one that stays inside', async () => {
    const good = sut.source.current()!.sha;
    repo.symlink('modules/010-app/secret.yaml', '../../../../../../etc/passwd');
    repo.commit('escaping link');
    const error = await waitFor('the refusal', () => sut.source.status().lastError);
    assert.match(error, /secret\.yaml.*leads outside the repository/);
    assert.equal(sut.source.current()?.sha, good);

    repo.delete('modules/010-app/secret.yaml');
    repo.symlink('modules/010-app/readme.md', '../../README.md');
    const sha = repo.commit('inner link');
    assert.equal((await nextRevision(6)).sha, sha);
  });

  it('rebuilds a corrupted mirror by itself', async () => {
    const mirror = path.join(sut.cacheDir, 'mirror.git');
    writeFileSync(path.join(mirror, 'HEAD'), 'garbage\n');
    rmSync(path.join(mirror, 'objects'), { recursive: true, force: true });
    repo.write({ 'modules/010-app/values.yaml': 'app:\n  greeting: after-corruption\n' });
    const sha = repo.commit('after corruption');
    const revision = await nextRevision(7);
    assert.equal(revision.sha, sha);
    assert.deepEqual((await renderedConfigMaps(revision)).app, { greeting: 'after-corruption' });
  });
});

describe('GitModulesSource with a ref', () => {
  it('serves the last good revision while the ref is deleted, and recovers when it returns', async () => {
    const repo = makeGitFixture('git-ref');
    repo.write(MODULES);
    const sha = repo.commit('initial');
    repo.git('push', '--quiet', 'origin', 'HEAD:release');
    const sut = await openSource({ MODULES_GIT_URL: repo.fileUrl, MODULES_GIT_REF: 'release' });
    try {
      const seen: string[] = [];
      await sut.source.start((revision) => {
        seen.push(revision.sha);
      });
      assert.deepEqual(seen, [sha]);
      repo.originGit('branch', '-D', 'release');
      const error = await waitFor('the failure', () => sut.source.status().lastError);
      assert.match(error, /ref 'release' is not on the remote/);
      assert.equal(sut.source.current()?.sha, sha);

      repo.write({ 'modules/010-app/values.yaml': 'app:\n  greeting: back\n' });
      const back = repo.commit('back');
      repo.git('push', '--quiet', 'origin', 'HEAD:release');
      await waitFor('the ref to return', () => (seen[1] === back ? true : undefined));
      assert.equal(sut.source.status().lastError, undefined);
    } finally {
      await sut.remove();
      repo.remove();
    }
  });

  it('adopts the revision an earlier run left current, before the remote is reached', async () => {
    const repo = makeGitFixture('git-adopt');
    repo.write(MODULES);
    const sha = repo.commit('initial');
    const first = await openSource({ MODULES_GIT_URL: repo.fileUrl });
    try {
      await first.source.sync();
      const { GitModulesSource } = await import('../../src/sources/git-modules-source.ts');
      const { loadGitSourceConfig } = await import('../../src/sources/git-source-config.ts');
      const again = new GitModulesSource({
        config: loadGitSourceConfig({
          MODULES_GIT_URL: 'file:///nonexistent/repo.git',
          MODULES_GIT_CACHE_DIR: first.cacheDir,
          MODULES_GIT_SUBPATH: 'modules',
        }),
        validate: () => Promise.resolve(),
        logger: first.logger,
      });
      assert.equal(again.current()?.sha, sha);
      const outcome = await again.sync();
      assert.equal(outcome.kind, 'failed');
      assert.equal(again.current()?.sha, sha, 'an unreachable remote leaves the cached revision in use');
    } finally {
      await first.remove();
      repo.remove();
    }
  });
});
