import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STOP_GRACE_MS } from '../../src/runtime/operator/operator-lifecycle.ts';
import { startAdmissionGate, type AdmissionGate, type HeldWrite } from './admission-gate.ts';
import {
  eventually,
  killOperatorTree,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

/**
 * The operator's faults with each delivery engine (KADDON_DELIVERY, docs/delivery.md): killed
 * mid-delivery, the API server down, SIGTERM mid-delivery; operator-native-faults.test.ts and
 * operator-helm-faults.test.ts run them, each on a cluster of its own. An admission webhook (admission-gate.ts) holds a
 * delivery where a fault matters, deterministically: the pending revision is written and the
 * release's object is being applied. What is checked is what a user sees: `helm history` and
 * `helm status` from the real helm binary, the objects, the operator's exit code and log.
 */

export function describeDeliveryFaults(delivery: 'native' | 'helm'): void {
  const NAMESPACE = `kaddon-${delivery}-faults-e2e`;
  let env: OperatorEnvironment;
  let gate: AdmissionGate;
  let operator: E2eOperator;

  before(async () => {
    env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: `operator-${delivery}-faults` });
    gate = await startAdmissionGate(env.cluster, env.api, NAMESPACE);
    for (const module of ['alpha', 'beta'])
      env.tree.write(`modules/010-${module}`, {
        ...stateModuleFiles(NAMESPACE, module, `  rev: "$(${module}.rev)"\n`),
        'values.yaml': `${module}Enabled: true\n${module}:\n  rev: 0\n`,
      });
    operator = await startWithEngine();
  });
  after(async () => {
    await gate.close();
    await env.stop();
  });

  async function startWithEngine(): Promise<E2eOperator> {
    const started = env.startOperator({
      // Past the operator's own 20 s shutdown limit: its exit after SIGTERM is under test.
      forceKillAfterDelay: 30_000,
      extraEnv: { KADDON_DELIVERY: delivery },
    });
    await waitReady(started, env.port);
    return started;
  }

  /** `helm history` of the release: revision, status and description of each. */
  async function history(release: string): Promise<[number, string, string][]> {
    return (await env.helm.history(release, NAMESPACE)).map((entry) => [
      entry.revision,
      entry.status,
      entry.description,
    ]);
  }

  async function stateData(module: string): Promise<unknown> {
    return (await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${module}-state`)).data;
  }

  /** Changes the module's values and waits until its delivery is held with its revision pending. */
  async function holdDelivery(module: string, rev: number): Promise<HeldWrite> {
    const held = gate.holdNext(`${module}-state`);
    await setOperatorConfig(env.api, NAMESPACE, { [module]: `rev: ${String(rev)}\n` });
    await held.arrived;
    const status = await env.helm.status(module, NAMESPACE);
    assert.equal(status?.status, 'pending-upgrade', 'the pending revision is written before the objects');
    return held;
  }

  /**
   * Resolves once `module`'s newest revision is deployed with `rev` in its object. The object is read
   * before the release: a revision is written pending before its objects, so a status read after
   * the object shows `rev` names that revision, never the one before it (read the other way round,
   * a slow poll paired the old deployed revision with the new object).
   */
  async function deployed(module: string, rev: number): Promise<number> {
    return eventually(operator, `${module} deployed with rev ${String(rev)}`, async () => {
      const data = (await stateData(module)) as { rev?: string };
      const status = await env.helm.status(module, NAMESPACE);
      return status?.status === 'deployed' && data.rev === String(rev) ? status.revision : undefined;
    });
  }

  function pending(rows: readonly [number, string, string][]): [number, string, string][] {
    return rows.filter(([, status]) => status.startsWith('pending-'));
  }

  describe(`kaddon operator with KADDON_DELIVERY=${delivery}: faults`, () => {
    it('killed mid-delivery: the next operator rolls the pending revision back, then delivers', async () => {
      assert.deepEqual(await history('alpha'), [[1, 'deployed', 'Install complete']]);
      const held = await holdDelivery('alpha', 1);
      await killOperatorTree(operator);
      held.release();
      assert.equal((await env.helm.status('alpha', NAMESPACE))?.status, 'pending-upgrade', 'left pending');

      operator = await startWithEngine();
      await deployed('alpha', 1);
      // docs/lifecycle.md "Helm delivery", "Stuck releases": rollback to the newest revision not pending.
      assert.deepEqual(await history('alpha'), [
        [1, 'superseded', 'Install complete'],
        // helm's rollback leaves the revision it rolls back from as it was (the helm engine's too).
        [2, 'pending-upgrade', 'Preparing upgrade'],
        [3, 'superseded', 'Rollback to 1'],
        [4, 'deployed', 'Upgrade complete'],
      ]);
      assert.match(operator.output(), /stuck release recovered/u);
    });

    it('API server down mid-delivery and after: the operator goes on and delivers both changes', async () => {
      const held = await holdDelivery('alpha', 2);
      // The API server dies under the write (a crash, not a drain), then comes back on its port.
      process.kill(env.cluster.pids().apiServer, 'SIGKILL');
      held.release();
      await env.cluster.restartApiServer();
      await deployed('alpha', 2);
      const rows = await history('alpha');
      // A revision left pending is rolled back over and stays in the history, as helm leaves it.
      assert.deepEqual(
        pending(rows.slice(-1)),
        [],
        `the newest revision is not pending: ${JSON.stringify(rows)}`,
      );

      await setOperatorConfig(env.api, NAMESPACE, { alpha: 'rev: 3\n' });
      const revision = await deployed('alpha', 3);
      assert.equal((await history('alpha')).at(-1)?.[2], 'Upgrade complete');
      assert.ok(
        revision > (rows.at(-1)?.[0] ?? 0),
        `revision ${String(revision)} after ${JSON.stringify(rows)}`,
      );
      assert.equal(operator.hasExited(), false, 'the operator did not exit');
    });

    it('SIGTERM mid-delivery: exits 0 within its grace with the revision failed; the next start delivers it', async () => {
      assert.deepEqual(await history('beta'), [[1, 'deployed', 'Install complete']]);
      const held = await holdDelivery('beta', 1);
      const signalledAt = Date.now();
      operator.process.kill('SIGTERM');
      const result = await operator.process;
      const waited = Date.now() - signalledAt;
      held.release();
      const rows = await history('beta');
      assert.deepEqual(pending(rows), [], `no revision left pending: ${JSON.stringify(rows)}`);
      assert.equal(rows.at(-1)?.[1], 'failed');
      assert.match(rows.at(-1)?.[2] ?? '', /^Upgrade "beta" failed: /u);
      assert.equal(result.exitCode, 0, operator.tail());
      // docs/lifecycle.md "Stopping": the grace ran out, and the process exited once the operator stopped.
      assert.ok(waited < STOP_GRACE_MS, `exited ${String(waited)} ms after SIGTERM`);
      assert.match(operator.output(), /ending running hooks and helm/u);
      assert.doesNotMatch(operator.output(), /still running after the operator stopped/u);

      operator = await startWithEngine();
      await deployed('beta', 1);
      assert.deepEqual(
        (await history('beta')).map(([, status]) => status),
        ['superseded', 'failed', 'deployed'],
      );
      operator.process.kill('SIGTERM');
      assert.equal((await operator.process).exitCode, 0, operator.tail());
    });
  });
}
