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
  it('lets `burst` requests through at once, then `qps` a second, each client on its own limit', async () => {
    // As the operator's main client and the resource monitor's: two limits side by side.
    await Promise.all([fire(clientWith(5, 10), 'paced-slow', 30), fire(clientWith(20, 5), 'paced-fast', 40)]);
    const slow = await arrivals('paced-slow');
    const fast = await arrivals('paced-fast');
    assert.equal(slow.length, 30);
    assert.equal(fast.length, 40);
    // The limit is on when requests leave the client: undici says when it creates each one (its
    // diagnostics channel), after the limiter let it go and before connecting. The arrivals at the
    // server are not used for that: on a busy machine the burst's TLS handshakes delayed it by
    // seconds, and it reached the server together with the paced requests behind it.
    const slowSent = sentTimes('paced-slow');
    const fastSent = sentTimes('paced-fast');
    assert.equal(slowSent.length, 30);
    assert.equal(fastSent.length, 40);
    // The paced requests (after the burst) leave one interval apart: the middle gap between them
    // is at least half an interval (100 ms at 5/s, 25 ms at 20/s); without a limit they leave
    // a few milliseconds apart. The middle gap, not the whole span: a request created late
    // behind the burst's connection set-up (100 ms at load 10) shortens the span by as much.
    const middleGap = (times: readonly number[], burst: number): number => {
      const paced = times.slice(burst);
      const gaps = paced.slice(1).map((time, index) => time - (paced[index] ?? 0)).sort((a, b) => a - b);
      return gaps[Math.floor(gaps.length / 2)] ?? 0;
    };
    const slowGap = middleGap(slowSent, 10);
    const fastGap = middleGap(fastSent, 5);
    assert.ok(slowGap >= 0.1, `the 20 requests after a burst of 10 at 5/s left ${slowGap.toFixed(3)} s apart`);
    assert.ok(fastGap >= 0.025, `the 35 requests after a burst of 5 at 20/s left ${fastGap.toFixed(3)} s apart`);
    const slowSpan = (slowSent.at(-1) ?? 0) - (slowSent[0] ?? 0);
    const fastSpan = (fastSent.at(-1) ?? 0) - (fastSent[0] ?? 0);
    // How the bucket spaces requests, window by window, is src/delivery/request-rate-limiter.test.ts's
    // to pin with a clock of its own: here, 50 ms apart at load 18 is below what can be seen.
    console.log(
      `# sent: 30 at 5/s (burst 10) over ${slowSpan.toFixed(2)} s; 40 at 20/s (burst 5) over ${fastSpan.toFixed(2)} s`,
    );
  });
});
