import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import { startOperatorEnvironment, waitReady, type OperatorEnvironment } from './operator-e2e-kit.ts';

/**
 * Durations beyond what a Node timer holds (docs/lifecycle.md "Bounds and timeouts"): a Node timer
 * fires at once above 2^31−1 ms (24.8 days), so a `720h` poll interval used to poll without pause.
 * Every duration setting and module.yaml field above 576h is refused at start, naming it; at 576h
 * the operator, once converged, stays idle.
 */
const NAMESPACE = 'kaddon-long-durations';

let env: OperatorEnvironment;
let repo: GitFixture;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-long-durations' });
  repo = makeGitFixture('long-durations');
  repo.write({
    'modules/values.yaml': 'appEnabled: true\n',
    'modules/010-app/module.yaml': 'healthTimeout: 576h\n',
    'modules/010-app/kustomization.yaml': `namespace: ${NAMESPACE}\nresources:\n- configmap.yaml\n`,
    'modules/010-app/configmap.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  x: "1"\n',
  });
  repo.commit('one module');
});
after(async () => {
  await env.stop();
  repo.remove();
});

/** Every duration setting of the operator, its Git source's poll interval included. */
function everyDuration(value: string): Record<string, string> {
  const names = [
    'HELM_TIMEOUT',
    'OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT',
    'KADDON_JQ_TIMEOUT',
    'KADDON_HELM_TEMPLATE_TIMEOUT',
    'KADDON_HOOK_TIMEOUT',
    'KADDON_HA_LEASE_DURATION',
    'KADDON_HA_RENEW_DEADLINE',
    'KADDON_HA_RETRY_PERIOD',
    'KADDON_RESOURCES_MONITOR_INTERVAL',
    'KADDON_HEALTH_TIMEOUT',
    'KADDON_DRIFT_INTERVAL',
    'MODULES_GIT_POLL_INTERVAL',
  ];
  return {
    ...Object.fromEntries(names.map((name) => [name, value])),
    MODULES_GIT_URL: repo.fileUrl,
    MODULES_GIT_SUBPATH: 'modules',
    MODULES_GIT_CACHE_DIR: path.join(env.tree.root, `git-cache-${value}`),
  };
}

/** User and system CPU time of a process so far, in clock ticks (/proc/PID/stat fields 14 and 15). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('durations a timer cannot hold', () => {
  it('refuses 720h at start, exit 1, naming the setting', async () => {
    const operator = env.startOperator({ forceKillAfterDelay: 5_000, extraEnv: everyDuration('720h') });
    const result = await operator.process;
    assert.equal(result.exitCode, 1, operator.tail());
    assert.match(operator.output(), /setting '[A-Z_]+': '720h' is longer than 576h \(24 days\)/);
  });

  it('at 576h everywhere, the converged operator stays idle', async (t) => {
    const operator = env.startOperator({ forceKillAfterDelay: 5_000, extraEnv: everyDuration('576h') });
    try {
      await waitReady(operator, env.port);
      const pid = operator.process.pid ?? 0;
      // Settle: the first convergence's last log lines and metrics are written.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const ticksBefore = cpuTicks(pid);
      const linesBefore = operator.output().split('\n').length;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const ticks = cpuTicks(pid) - ticksBefore;
      const lines = operator.output().split('\n').length - linesBefore;
      t.diagnostic(`${String(ticks)} CPU ticks, ${String(lines)} log lines in 5 s`);
      // A timer that fires at once spins: over 100 ticks and thousands of log lines in 5 s at 720h without the bound.
      assert.ok(ticks < 50, `${String(ticks)} CPU ticks in 5 s while idle`);
      assert.ok(lines <= 1, `${String(lines)} log lines in 5 s while idle:\n${operator.tail()}`);
    } finally {
      operator.process.kill('SIGTERM');
      await operator.process;
    }
  });
});
