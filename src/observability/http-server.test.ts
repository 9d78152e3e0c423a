import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHttpServer, type OperatorHttpServer } from './http-server.ts';

describe('operator HTTP server', () => {
  let server: OperatorHttpServer;
  let base: string;
  before(async () => {
    server = createHttpServer({
      address: '127.0.0.1',
      port: 0,
      sources: [
        { contentType: 'text/plain', metrics: () => Promise.resolve('# TYPE a counter\na 1\n') },
        { contentType: 'text/plain', metrics: () => Promise.resolve('\n') },
        { contentType: 'text/plain', metrics: () => Promise.resolve('# TYPE b gauge\nb 2\n') },
      ],
    });
    const { port } = await server.start();
    base = `http://127.0.0.1:${String(port)}`;
  });
  after(() => server.stop());

  it('serves every source on /metrics in the Prometheus text format', async () => {
    const response = await fetch(`${base}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/u);
    assert.equal(await response.text(), '# TYPE a counter\na 1\n\n# TYPE b gauge\nb 2\n');
  });

  it('answers /healthz while running', async () => {
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });

  it('answers /readyz with 503 until setReady, then 200', async () => {
    assert.equal((await fetch(`${base}/readyz`)).status, 503);
    server.setReady();
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
  });

  it('answers 404 for any other path', async () => {
    assert.equal((await fetch(`${base}/metrics/other`)).status, 404);
    assert.equal((await fetch(`${base}/`)).status, 404);
  });
});

describe('operator HTTP server lifecycle', () => {
  it('stops listening on stop, and stop without start is harmless', async () => {
    const server = createHttpServer({ address: '127.0.0.1', port: 0, sources: [] });
    await server.stop();
    const { port } = await server.start();
    await server.stop();
    await assert.rejects(fetch(`http://127.0.0.1:${String(port)}/healthz`));
  });

  it('rejects start when the port is taken', async () => {
    const first = createHttpServer({ address: '127.0.0.1', port: 0, sources: [] });
    const { port } = await first.start();
    const second = createHttpServer({ address: '127.0.0.1', port, sources: [] });
    await assert.rejects(second.start(), { code: 'EADDRINUSE' });
    await first.stop();
  });
});
