import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rawExchange, stallRequest } from '../../test/http/raw-http.ts';
import { makeTempTree, type TempTree } from '../../test/temp-tree.ts';
import { readSecretSetting } from '../config/secret-setting.ts';
import { startWebhookSignatureCheck } from '../sources/git-webhook-signature.ts';
import { createHttpServer, type OperatorHttpServer } from './http-server.ts';
import { createLogger } from './logger.ts';

const SECRET = 'limits-secret';
const BODY = '{"ref":"refs/heads/main"}';
const sign = (body: string): string => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
const head = (headers: string, length: number): string =>
  `POST /hooks/git HTTP/1.1\r\nhost: x\r\ncontent-length: ${String(length)}\r\n${headers}\r\n`;

describe('the Git webhook against clients that do not sign, stall or send nonsense', () => {
  let tree: TempTree;
  let server: OperatorHttpServer;
  let port: number;
  let log = '';
  let requested = 0;
  let secretFile: string;

  before(async () => {
    tree = makeTempTree('webhook-limits');
    secretFile = path.join(tree.root, 'secret');
    writeFileSync(secretFile, `${SECRET}\n`);
    const logger = createLogger({
      type: 'text',
      level: 'debug',
      noTime: true,
      sink: { write: (text) => (log += text) },
    });
    server = createHttpServer({
      address: '127.0.0.1',
      port: 0,
      sources: [],
      logger,
      gitWebhook: {
        startSignatureCheck: (headers) =>
          startWebhookSignatureCheck(
            headers,
            readSecretSetting({ file: secretFile, setting: 'KADDON_GIT_WEBHOOK_SECRET_FILE' }),
          ),
        requestSync: () => {
          requested += 1;
          return true;
        },
        logger,
        maxUnverifiedBodies: 4,
      },
    });
    ({ port } = await server.start());
  });
  after(async () => {
    await server.stop();
    tree.remove();
  });

  const signedPost = (): Promise<Response> =>
    fetch(`http://127.0.0.1:${String(port)}/hooks/git`, {
      method: 'POST',
      headers: { 'x-hub-signature-256': sign(BODY) },
      body: BODY,
    });

  it('refuses an unsigned request at once, without waiting for its body', async () => {
    const stalled = await stallRequest({ port }, head('', 1_000_000), 1000);
    assert.equal(await stalled.answered, 401);
    stalled.socket.destroy();
  });

  it('takes a right GitLab token before its body arrives, and refuses a wrong one', async () => {
    const before = requested;
    const right = await stallRequest({ port }, head(`x-gitlab-token: ${SECRET}\r\n`, 5000), 0);
    assert.equal(await right.answered, 202);
    right.socket.destroy();
    const wrong = await stallRequest({ port }, head('x-gitlab-token: guess\r\n', 5000), 0);
    assert.equal(await wrong.answered, 401);
    wrong.socket.destroy();
    assert.equal(requested, before + 1);
  });

  it('makes the oldest stalled bodies give way with 503, so that a signed request still gets through', async () => {
    const stalled = [];
    for (let i = 0; i < 6; i += 1)
      stalled.push(
        await stallRequest({ port }, head(`x-hub-signature-256: sha256=${'0'.repeat(64)}\r\n`, 4096), 1024),
      );
    assert.equal(await stalled[0]?.answered, 503);
    assert.equal(await stalled[1]?.answered, 503);
    const before = requested;
    assert.equal((await signedPost()).status, 202);
    assert.equal(requested, before + 1);
    assert.equal(await stalled[2]?.answered, 503, 'the signed request took the oldest place');
    for (const request of stalled) request.socket.destroy();
    assert.equal((await signedPost()).status, 202, 'and one after the stalled ones are gone');
  });

  it('answers 400, 404, 405 or 431 to targets, methods and headers it cannot use, with nothing logged', async () => {
    const before = log;
    const cases: [string, number][] = [
      ['GET //[ HTTP/1.1\r\nhost: x\r\n\r\n', 404],
      ['GET //x:99999/ HTTP/1.1\r\nhost: x\r\n\r\n', 404],
      ['GET http://x:99999/ HTTP/1.1\r\nhost: x\r\n\r\n', 400],
      ['GET * HTTP/1.1\r\nhost: x\r\n\r\n', 400],
      ['GET /metrics/%ff%E0%A4%A HTTP/1.1\r\nhost: x\r\n\r\n', 404],
      ['FOO /metrics HTTP/1.1\r\nhost: x\r\n\r\n', 400],
      ['DELETE /metrics HTTP/1.1\r\nhost: x\r\n\r\n', 405],
      ['GET /hooks/git HTTP/1.1\r\nhost: x\r\n\r\n', 405],
      [`GET /metrics HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['POST /hooks/git HTTP/1.1\r\nhost: x\r\ncontent-length: 2000000\r\n\r\n', 413],
    ];
    for (const [request, status] of cases)
      assert.equal((await rawExchange({ port }, request)).status, status, request.slice(0, 40));
    assert.equal(log.slice(before.length), '');
    assert.equal((await fetch(`http://127.0.0.1:${String(port)}/healthz`)).status, 200);
  });

  it('answers 503 while the secret file is missing or a directory, says so once, and recovers', async () => {
    const before = log.length;
    rmSync(secretFile);
    assert.equal((await signedPost()).status, 503);
    assert.equal((await signedPost()).status, 503);
    writeFileSync(secretFile, `${SECRET}\n`);
    assert.equal((await signedPost()).status, 202);
    rmSync(secretFile);
    tree.write('secret', { inside: 'x' });
    assert.equal((await signedPost()).status, 503);
    rmSync(secretFile, { recursive: true });
    writeFileSync(secretFile, SECRET);
    assert.equal((await signedPost()).status, 202);
    const lines = log
      .slice(before)
      .trimEnd()
      .split('\n')
      .filter((line) => !line.includes('fetch requested'));
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.match(
      lines[0] ?? '',
      /git webhook answers 503: setting 'KADDON_GIT_WEBHOOK_SECRET_FILE': the file '.*' does not exist/u,
    );
    assert.match(lines[1] ?? '', /the secret can be read again/u);
    assert.match(
      lines[2] ?? '',
      /setting 'KADDON_GIT_WEBHOOK_SECRET_FILE': '.*' is a directory, not a file/u,
    );
    assert.match(lines[3] ?? '', /the secret can be read again/u);
  });
});
