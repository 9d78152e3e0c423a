import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startWebhookSignatureCheck } from '../sources/git-webhook-signature.ts';
import { MAX_WEBHOOK_BODY_BYTES } from './git-webhook-route.ts';
import { createHttpServer, type OperatorHttpServer } from './http-server.ts';

const SECRET = 'route-secret';
const BODY = '{"ref":"refs/heads/main"}';
const sign = (body: string, secret = SECRET): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('POST /hooks/git', () => {
  let server: OperatorHttpServer;
  let base: string;
  let port: number;
  let requested = 0;
  let leading = true;

  before(async () => {
    server = createHttpServer({
      address: '127.0.0.1',
      port: 0,
      sources: [],
      gitWebhook: {
        startSignatureCheck: (headers) => startWebhookSignatureCheck(headers, SECRET),
        requestSync: () => {
          if (leading) requested += 1;
          return leading;
        },
      },
    });
    ({ port } = await server.start());
    base = `http://127.0.0.1:${String(port)}/hooks/git`;
  });
  after(() => server.stop());

  const post = (headers: Record<string, string>, body = BODY): Promise<Response> =>
    fetch(base, { method: 'POST', headers, body });

  it('answers 202 to a signed request and asks for one fetch', async () => {
    const before = requested;
    const response = await post({ 'x-hub-signature-256': sign(BODY), 'x-github-event': 'push' });
    assert.equal(response.status, 202);
    assert.equal(requested, before + 1);
  });

  it('answers 401 to a missing or wrong signature, and asks for nothing', async () => {
    const before = requested;
    assert.equal((await post({})).status, 401);
    assert.equal((await post({ 'x-hub-signature-256': sign(BODY, 'other') })).status, 401);
    assert.equal((await post({ 'x-gitlab-token': 'guess' })).status, 401);
    assert.equal(requested, before);
  });

  it('answers 405 to another method', async () => {
    const response = await fetch(base);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });

  it('answers 413 to a body over 1 MiB, declared or streamed', async () => {
    const before = requested;
    const big = 'x'.repeat(MAX_WEBHOOK_BODY_BYTES + 1);
    assert.equal(await rawPost(port, big, { 'x-hub-signature-256': sign(big) }), 413);
    assert.equal(
      await rawPost(port, big, { 'x-hub-signature-256': sign(big), 'transfer-encoding': 'chunked' }),
      413,
    );
    assert.equal(requested, before);
  });

  it('answers 503 on a process without a Git source to ask (an HA standby)', async () => {
    leading = false;
    assert.equal((await post({ 'x-hub-signature-256': sign(BODY) })).status, 503);
    leading = true;
  });
});

describe('the Git webhook route without a secret', () => {
  it('does not exist: 404', async () => {
    const server = createHttpServer({ address: '127.0.0.1', port: 0, sources: [] });
    const { port } = await server.start();
    const response = await fetch(`http://127.0.0.1:${String(port)}/hooks/git`, {
      method: 'POST',
      body: BODY,
    });
    assert.equal(response.status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${String(port)}/hooks/git`)).status, 404);
    await server.stop();
  });
});

/**
 * The status of a POST sent in 64 KiB pieces; the server may close the connection before the whole
 * body is written, which is what it should do past the limit.
 */
function rawPost(port: number, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: '/hooks/git', method: 'POST', headers },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    const chunked = headers['transfer-encoding'] === 'chunked';
    if (!chunked) request.setHeader('content-length', Buffer.byteLength(body));
    for (let at = 0; at < body.length; at += 65_536) request.write(body.slice(at, at + 65_536));
    request.end();
  });
}
