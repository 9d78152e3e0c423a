import assert from 'node:assert/strict';
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

/**
 * The most requests that arrived in any span beyond what `burst` then `qps` a second allow, with
 * `slackSeconds` for requests the client sent apart but the server received closer together.
 */
function excess(times: readonly number[], qps: number, burst: number, slackSeconds: number): number {
  let worst = -Infinity;
  for (let first = 0; first < times.length; first++)
    for (let last = first; last < times.length; last++) {
      const span = (times[last] ?? 0) - (times[first] ?? 0);
      worst = Math.max(worst, last - first + 1 - (burst + qps * (span + slackSeconds)));
    }
  return worst;
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
    // 20 requests beyond the burst of 10, at 5 a second: 4 s from the first to the last, less what
    // connecting delays the first; without a limit all arrive within a fraction of a second.
    const slowSpan = (slow.at(-1) ?? 0) - (slow[0] ?? 0);
    const fastSpan = (fast.at(-1) ?? 0) - (fast[0] ?? 0);
    assert.ok(
      slowSpan >= 3,
      `30 requests at 5/s after a burst of 10 arrived within ${slowSpan.toFixed(2)} s`,
    );
    assert.ok(
      fastSpan >= 1.2,
      `40 requests at 20/s after a burst of 5 arrived within ${fastSpan.toFixed(2)} s`,
    );
    // Requests the client sent apart may reach the server closer together by as much as the server
    // delays requests sent together: the burst, sent at one instant, shows that delay on this run
    // (a busy machine spread a burst over more than a second).
    const slack = (times: readonly number[], burst: number): number =>
      Math.max(0.5, (times[burst - 1] ?? 0) - (times[0] ?? 0));
    assert.ok(
      excess(slow, 5, 10, slack(slow, 10)) <= 0,
      'more requests arrived than 5/s with a burst of 10 allow',
    );
    assert.ok(
      excess(fast, 20, 5, slack(fast, 5)) <= 0,
      'more requests arrived than 20/s with a burst of 5 allow',
    );
    console.log(
      `# arrivals: 30 at 5/s (burst 10) over ${slowSpan.toFixed(2)} s; 40 at 20/s (burst 5) over ${fastSpan.toFixed(2)} s`,
    );
  });
});
