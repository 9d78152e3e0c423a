import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeGitFixture, MODULES, type GitFixture } from './git-fixture.ts';
import { startGitHttpServer, type GitHttpServer } from './git-servers.ts';
import { logText, openSource } from './source-harness.ts';

const USER = 'deployer';
const PASSWORD = 's3cret-Pa55word-xyz';

describe('GitModulesSource over HTTP with basic auth', () => {
  let repo: GitFixture;
  let server: GitHttpServer;
  let sha: string;
  const secretFile = (name: string, text: string): string => {
    const file = path.join(repo.root, name);
    writeFileSync(file, `${text}\n`);
    return file;
  };

  before(async () => {
    repo = makeGitFixture('git-http');
    repo.write(MODULES);
    sha = repo.commit('initial');
    server = await startGitHttpServer(repo.serverRoot, { username: USER, password: PASSWORD });
  });
  after(async () => {
    await server.stop();
    repo.remove();
  });

  it('syncs with a user and a password file', async () => {
    const sut = await openSource({
      MODULES_GIT_URL: server.url('origin.git'),
      MODULES_GIT_USERNAME: USER,
      MODULES_GIT_PASSWORD_FILE: secretFile('password', PASSWORD),
    });
    try {
      const outcome = await sut.source.sync();
      assert.equal(outcome.kind, 'updated');
      assert.equal(sut.source.current()?.sha, sha);
      assert.doesNotMatch(logText(sut.logger), new RegExp(PASSWORD));
    } finally {
      await sut.remove();
    }
  });

  it('fails with a wrong token, and the token appears nowhere: error, log, status, metrics', async () => {
    const token = 'ghp_wrongTOKEN_0123456789';
    const sut = await openSource({
      MODULES_GIT_URL: server.url('origin.git'),
      MODULES_GIT_TOKEN_FILE: secretFile('token', token),
    });
    try {
      const outcome = await sut.source.sync();
      assert.equal(outcome.kind, 'failed');
      assert.ok(
        server.authorizations.includes(`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`),
        'the token went to the server',
      );
      const seen = [
        outcome.error.describe(),
        logText(sut.logger),
        JSON.stringify(sut.source.status()),
        await sut.metrics.registry.metrics(),
      ].join('\n');
      assert.match(sut.source.status().lastError ?? '', /cannot be listed/);
      assert.doesNotMatch(seen, /wrongTOKEN/);
    } finally {
      await sut.remove();
    }
  });

  it('redacts credentials written into the URL', async () => {
    const url = server.url('origin.git').replace('http://', `http://${USER}:${PASSWORD}x@`);
    const sut = await openSource({ MODULES_GIT_URL: url });
    try {
      const outcome = await sut.source.sync();
      assert.equal(outcome.kind, 'failed');
      const seen = [outcome.error.describe(), logText(sut.logger), JSON.stringify(sut.source.status())].join(
        '\n',
      );
      assert.doesNotMatch(seen, new RegExp(PASSWORD));
      assert.match(sut.source.status().url, /http:\/\/\*\*\*@127\.0\.0\.1/);
    } finally {
      await sut.remove();
    }
  });
});
