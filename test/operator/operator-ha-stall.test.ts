import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import { findFreePort } from '../cluster/free-port.ts';
import {
  eventually,
  startOperatorEnvironment,
  stateModuleFiles,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';
import { startStallableProxy, type StallableProxy } from './stallable-proxy.ts';

const NAMESPACE = 'kaddon-ha-stall-e2e';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/addon-operator-leader-election`;
/** Lease timings: a renew deadline well inside the lease, as the defaults (35 s, 30 s) have it. */
const LEASE_SECONDS = 10;
let env: OperatorEnvironment;
let proxy: StallableProxy;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-ha-stall-e2e' });
  env.tree.write('modules', {
    'values.yaml': 'appEnabled: true\n',
    ...Object.fromEntries(
      Object.entries(stateModuleFiles(NAMESPACE, 'app', '  greeting: hello\n')).map(([file, text]) => [
        `010-app/${file}`,
        text,
      ]),
    ),
  });
  const server = new URL(env.cluster.server);
  proxy = await startStallableProxy({ host: server.hostname, port: Number(server.port) });
});
after(async () => {
  await proxy.close();
  await env.stop();
});

async function lease(): Promise<{ holder: string; renewTime: number } | undefined> {
  const object = await env.api.request('GET', LEASE).catch(() => undefined);
  const spec = isJsonObject(object?.spec) ? object.spec : {};
  if (typeof spec.holderIdentity !== 'string' || typeof spec.renewTime !== 'string') return undefined;
  return { holder: spec.holderIdentity, renewTime: Date.parse(spec.renewTime) };
}

describe('kaddon operator with ADDON_OPERATOR_HA whose connection to the API server stalls', () => {
  it('stops leading at its renew deadline, before the lease it last renewed expires', async () => {
    const port = await findFreePort();
    const leader = env.startOperator({
      forceKillAfterDelay: 30_000,
      extraEnv: {
        ADDON_OPERATOR_HA: 'true',
        ADDON_OPERATOR_POD: 'kaddon-stalled',
        KADDON_HA_LEASE_DURATION: `${String(LEASE_SECONDS)}s`,
        KADDON_HA_RENEW_DEADLINE: '5s',
        KADDON_HA_RETRY_PERIOD: '1s',
        // Every request of the operator and of its helm goes through the proxy.
        KUBE_SERVER: `https://127.0.0.1:${String(proxy.port)}`,
        ADDON_OPERATOR_LISTEN_PORT: String(port),
        DEBUG_UNIX_SOCKET: path.join(env.tree.root, 'stalled.socket'),
      },
    });
    await eventually(leader, 'leading and converged', async () => {
      const held = await lease();
      const ready = await fetch(`http://127.0.0.1:${String(port)}/readyz`).then((response) =>
        response.text(),
      );
      return held?.holder === 'kaddon-stalled' && ready === 'ok\n' ? true : undefined;
    });
    // A renew or two more through the proxy, then the path goes silent without closing.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    proxy.stall();
    const stalledAt = Date.now();
    await eventually(leader, 'the leader says it lost the lease', () =>
      Promise.resolve(/lost the leader lease/u.test(leader.output()) ? true : undefined),
    );
    // The lease as the others see it: renewed last before the stall, expiring a lease duration later.
    const last = await lease();
    assert.equal(last?.holder, 'kaddon-stalled');
    const line =
      leader
        .output()
        .split('\n')
        .find((text) => text.includes('lost the leader lease')) ?? '';
    const lostAt = Date.parse(/time=(\S+)/u.exec(line)?.[1] ?? 'none');
    assert.ok(Number.isFinite(lostAt), line);
    const expiresAt = last.renewTime + LEASE_SECONDS * 1000;
    assert.ok(
      lostAt < expiresAt,
      `stopped leading at ${new Date(lostAt).toISOString()}, the lease expires at ${new Date(expiresAt).toISOString()}`,
    );
    console.log(
      `# stalled connection: leading ended ${((lostAt - stalledAt) / 1000).toFixed(1)} s after the stall, ${((expiresAt - lostAt) / 1000).toFixed(1)} s before the lease expired (lease ${String(LEASE_SECONDS)} s, renew deadline 5 s, retry 1 s)`,
    );
    // And the process ends, to start again as a standby.
    const result = await leader.process;
    assert.equal(result.exitCode, 0, leader.tail());
  });
});
