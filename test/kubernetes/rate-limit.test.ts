import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

/**
 * The client-side rate limits (README "Settings": KUBE_CLIENT_QPS/_BURST, HELM_MONITOR_KUBE_CLIENT_*),
 * counted where they matter: the API server's audit log records when each request arrived.
 */
let cluster: TestCluster;
let dir: string;
let auditLog: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kaddon-rate-limit-'));
  const policy = path.join(dir, 'audit-policy.yaml');
  auditLog = path.join(dir, 'audit.log');
  // One event per request of the two namespaces the test reads, when its response is complete.
  await writeFile(
    policy,
    stringify({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived', 'ResponseStarted'],
      rules: [{ level: 'Metadata', namespaces: ['paced-slow', 'paced-fast'] }, { level: 'None' }],
    }),
  );
  cluster = await startTestCluster({
    extraApiServerFlags: [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`],
  });
});
after(async () => {
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
});

/** When undici created each request this process sent, in seconds, with its path. */
const sent: { readonly path: string; readonly at: number }[] = [];
const recordSent = (message: unknown): void => {
  const request = (message as { request?: { path?: unknown } }).request;
  if (typeof request?.path === 'string') sent.push({ path: request.path, at: performance.now() / 1000 });
};
subscribe('undici:request:create', recordSent);
after(() => {
  unsubscribe('undici:request:create', recordSent);
});

/** When each request to `namespace` left this process, in seconds, in order. */
function sentTimes(namespace: string): number[] {
  return sent
    .filter((entry) => entry.path.includes(`/namespaces/${namespace}/`))
    .map((entry) => entry.at)
    .sort((x, y) => x - y);
}

/** When each request to `namespace` reached the API server, in seconds, in order. */
async function arrivals(namespace: string): Promise<number[]> {
  const text = await readFile(auditLog, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.includes(`/namespaces/${namespace}/`))
    .map((line) => {
      const event = JSON.parse(line) as { requestReceivedTimestamp: string };
      return Date.parse(event.requestReceivedTimestamp) / 1000;
    })
    .sort((a, b) => a - b);
}

function clientWith(qps: number, burst: number): KubeClient {
  return new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath), { rateLimit: { qps, burst } });
}

/** `count` GETs at once (of ConfigMaps that do not exist: a 404 is a request like any other). */
async function fire(client: KubeClient, namespace: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      client
        .request('GET', `/api/v1/namespaces/${namespace}/configmaps/probe-${String(index)}`)
        .catch(() => undefined),
    ),
  );
}

describe('client-side rate limits, counted in the API server audit log', () => {
  it('holds each client to its own `qps` after its `burst`, whatever the machine load', async () => {
    // As the operator's main client and the resource monitor's: two limits side by side.
    const firedAt = performance.now() / 1000;
    await Promise.all([fire(clientWith(5, 10), 'paced-slow', 30), fire(clientWith(20, 5), 'paced-fast', 40)]);
    const slow = await arrivals('paced-slow');
    const fast = await arrivals('paced-fast');
    assert.equal(slow.length, 30);
    assert.equal(fast.length, 40);
    // The limit is on when requests leave the client: undici says when it creates each one (its
    // diagnostics channel), after the limiter let it go and before connecting.
    const slowSent = sentTimes('paced-slow');
    const fastSent = sentTimes('paced-fast');
    assert.equal(slowSent.length, 30);
    assert.equal(fastSent.length, 40);
    // A token bucket lets `burst` go at once and one more each 1/qps: the last of `count` requests
    // leaves no sooner than (count - burst) / qps after they were all asked for. Counted from when
    // they were asked for, a busy machine only makes that later: the gaps between sends are not
    // asserted (a stalled event loop lets the tokens it accrued meanwhile go together, as it
    // should), nor the burst's own timing, which src/delivery/request-rate-limiter.test.ts pins
    // with a clock of its own. Without a limit the 30 and 40 requests leave within milliseconds.
    const slowLast = (slowSent.at(-1) ?? 0) - firedAt;
    const fastLast = (fastSent.at(-1) ?? 0) - firedAt;
    assert.ok(
      slowLast >= 0.95 * ((30 - 10) / 5),
      `30 requests at 5/s (burst 10): the last left after ${slowLast.toFixed(2)} s`,
    );
    assert.ok(
      fastLast >= 0.95 * ((40 - 5) / 20),
      `40 requests at 20/s (burst 5): the last left after ${fastLast.toFixed(2)} s`,
    );
    // Each on its own limit: held to the slow client's 5/s, the fast one's 40 could not be done
    // before the slow one's 30 (the two share one event loop, so a stall delays both alike).
    assert.ok(
      fastLast < slowLast,
      `the fast client's last left after ${fastLast.toFixed(2)} s, the slow one's after ${slowLast.toFixed(2)} s`,
    );
    console.log(
      `# the last request left after ${slowLast.toFixed(2)} s (5/s) and ${fastLast.toFixed(2)} s (20/s)`,
    );
  });
});
