import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import { findFreePort } from '../cluster/free-port.ts';
import {
  eventually,
  killOperatorTree,
  startOperatorEnvironment,
  stateModuleFiles,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-ha-e2e';
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/addon-operator-leader-election`;
let env: OperatorEnvironment;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-ha-e2e' });
  env.tree.write('modules', {
    'values.yaml': 'appEnabled: true\n',
    ...Object.fromEntries(
      Object.entries(stateModuleFiles(NAMESPACE, 'app', '  greeting: hello\n')).map(([file, text]) => [
        `010-app/${file}`,
        text,
      ]),
    ),
  });
});
after(() => env.stop());

interface Replica {
  readonly name: string;
  readonly port: number;
  readonly operator: E2eOperator;
}

/** One replica of an HA Deployment: its own port, socket and temp dir, short lease timings. */
async function startReplica(name: string): Promise<Replica> {
  const port = await findFreePort();
  const operator = env.startOperator({
    forceKillAfterDelay: 30_000,
    extraEnv: {
      ADDON_OPERATOR_HA: 'true',
      ADDON_OPERATOR_POD: name,
      KADDON_HA_LEASE_DURATION: '4s',
      KADDON_HA_RENEW_DEADLINE: '3s',
      KADDON_HA_RETRY_PERIOD: '1s',
      ADDON_OPERATOR_LISTEN_PORT: String(port),
      DEBUG_UNIX_SOCKET: path.join(env.tree.root, `${name}.socket`),
      ADDON_OPERATOR_TMP_DIR: path.join(env.tree.root, `${name}-tmp`),
    },
  });
  return { name, port, operator };
}

async function get(replica: Replica, route: string): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${String(replica.port)}${route}`);
    return { status: response.status, text: await response.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

async function holder(): Promise<string | undefined> {
  try {
    const lease = await env.api.request('GET', LEASE);
    const spec = isJsonObject(lease.spec) ? lease.spec : {};
    return typeof spec.holderIdentity === 'string' && spec.holderIdentity !== ''
      ? spec.holderIdentity
      : undefined;
  } catch {
    return undefined;
  }
}

/** Waits until the replica leads and has converged: /readyz says ok, not standby. */
function leadsAndConverges(replica: Replica): Promise<true> {
  return eventually(replica.operator, `${replica.name} leading and converged`, async () =>
    (await holder()) === replica.name && (await get(replica, '/readyz')).text === 'ok\n' ? true : undefined,
  );
}

/** Seconds from `since` until the replica holds the lease (polled every 250 ms). */
async function secondsUntilHolder(replica: Replica, since: number): Promise<number> {
  await eventually(replica.operator, `${replica.name} holding the lease`, async () =>
    (await holder()) === replica.name ? true : undefined,
  );
  return (performance.now() - since) / 1000;
}

async function revisions(): Promise<number | undefined> {
  return (await env.helm.status('app', NAMESPACE))?.revision;
}

describe('kaddon operator with ADDON_OPERATOR_HA against a real cluster', () => {
  it('leads with one replica, stands by with the other, hands over on SIGKILL and on SIGTERM', async () => {
    const a = await startReplica('kaddon-a');
    await leadsAndConverges(a);
    assert.equal(await revisions(), 1);
    assert.match((await get(a, '/metrics')).text, /^addon_operator_ha_leader 1$/mu);

    const b = await startReplica('kaddon-b');
    await eventually(b.operator, 'kaddon-b standing by', async () => {
      const ready = await get(b, '/readyz');
      return ready.status === 200 && ready.text.startsWith('standby') ? true : undefined;
    });
    assert.match((await get(b, '/metrics')).text, /^addon_operator_ha_leader 0$/mu);
    assert.equal((await get(b, '/healthz')).status, 200);
    assert.doesNotMatch(b.operator.output(), /ModuleRun|helm upgrade/u, 'a standby acts on nothing');

    // The leader dies: the standby leads once the lease has not been renewed for its duration.
    const killedAt = performance.now();
    await killOperatorTree(a.operator);
    const afterKill = await secondsUntilHolder(b, killedAt);
    await leadsAndConverges(b);
    assert.equal(await revisions(), 1, 'the new leader makes no needless upgrade');

    // A rolling update: SIGTERM releases the lease and the other replica leads at once.
    const c = await startReplica('kaddon-c');
    await eventually(c.operator, 'kaddon-c standing by', async () =>
      (await get(c, '/readyz')).text.startsWith('standby') ? true : undefined,
    );
    const terminatedAt = performance.now();
    b.operator.process.kill('SIGTERM');
    const afterTerm = await secondsUntilHolder(c, terminatedAt);
    const stopped = await b.operator.process;
    assert.equal(stopped.exitCode, 0, b.operator.tail());
    assert.match(b.operator.output(), /released the leader lease/u);
    await leadsAndConverges(c);
    assert.equal(await revisions(), 1, 'no replica upgraded what another had delivered');
    const history = await env.helm.history('app', NAMESPACE);
    assert.equal(history.length, 1, 'one revision, made by one leader');
    console.log(
      `# lease hand-over (lease 4 s, renew deadline 3 s, retry 1 s): after SIGKILL ${afterKill.toFixed(1)} s, after SIGTERM ${afterTerm.toFixed(1)} s`,
    );
  });
});
