import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ConnectionConfig } from './connection-config.ts';
import { KubeApiError, KubeClient, type KubeRequestMetrics } from './kube-client.ts';
import type { KubeConnection } from './kube-connection.ts';

/** A loopback port nothing listens on: every request fails without an answer. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

/** A connection without credentials to `server`. */
function anonymous(server: string): KubeConnection {
  const config = new ConnectionConfig();
  config.loadFromClusterAndUser({ name: 'closed', server, skipTLSVerify: false }, { name: 'nobody' });
  return { server, config, credentialsRejected: () => undefined };
}

function recordingMetrics(): KubeRequestMetrics & { results: string[]; latencies: string[] } {
  const results: string[] = [];
  const latencies: string[] = [];
  return {
    results,
    latencies,
    kubeRequestResult: ({ code, method, host }) => results.push(`${code} ${method} ${host}`),
    kubeRequestLatency: ({ verb, url }, seconds) => {
      assert.ok(seconds >= 0);
      latencies.push(`${verb} ${url}`);
    },
  };
}

describe('KubeClient request metrics (docs/observability.md "Metrics": kubernetes_client_request_*)', () => {
  it('counts a request that got no answer as <error>, with its latency under the URL template', async () => {
    const port = await closedPort();
    const metrics = recordingMetrics();
    const client = new KubeClient(anonymous(`https://127.0.0.1:${port}`), { metrics });
    await assert.rejects(
      client.request('GET', '/api/v1/namespaces/web/configmaps/one', { query: { limit: 1 } }),
      (error: unknown) => error instanceof KubeApiError && error.status === 0,
    );
    assert.deepEqual(metrics.results, [`<error> GET 127.0.0.1:${port}`]);
    assert.deepEqual(metrics.latencies, [
      `GET https://127.0.0.1:${port}/api/v1/namespaces/%7Bnamespace%7D/configmaps/%7Bname%7D?limit=%7Bvalue%7D`,
    ]);
  });

  it('counts a watch that got no answer, without a latency (as client-go)', async () => {
    const port = await closedPort();
    const metrics = recordingMetrics();
    const client = new KubeClient(anonymous(`https://127.0.0.1:${port}`), { metrics });
    const signal = new AbortController().signal;
    await assert.rejects(client.watch('/api/v1/configmaps', {}, () => undefined, { signal, idleMs: 1_000 }));
    assert.deepEqual(metrics.results, [`<error> GET 127.0.0.1:${port}`]);
    assert.deepEqual(metrics.latencies, []);
  });
});
