import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseHookMetrics } from '../../src/hooks/hook-metrics.ts';
import { createHookMetricsStore } from '../../src/observability/hook-metrics-store.ts';
import { createHttpServer, type OperatorHttpServer } from '../../src/observability/http-server.ts';
import { METRIC_CATALOG } from '../../src/observability/metrics-catalog.ts';
import { createOperatorMetrics, type OperatorMetrics } from '../../src/observability/metrics.ts';

const PREFIX = 'addon_operator_';

/**
 * promtool's naming lint on names addon-operator documents (docs/observability.md "Metrics", and the
 * custom metric of its "Grouped metrics" example). Any other finding, and any parse error, fails.
 */
const SEED_NAMES_PROMTOOL_DISLIKES = [
  `${PREFIX}binding_count non-histogram and non-summary metrics should not have "_count" suffix`,
  `${PREFIX}convergence_seconds counter metrics should have "_total" suffix`,
  `${PREFIX}live_ticks counter metrics should have "_total" suffix`,
  'hook_metric counter metrics should have "_total" suffix',
];

function findPromtool(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'promtool');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  assert.fail(
    "promtool not found on PATH: it validates the /metrics exposition. Install Debian's prometheus " +
      'package (apt-get install -y prometheus), as .ci/run does.',
  );
}

/** One sample of every built-in metric, through the verbs the operator uses. */
function recordEverything(metrics: OperatorMetrics): void {
  const hook = { hook: '000-a.sh', binding: 'pods', activation: 'kubernetes', queue: 'main' };
  const binding = { hook: 'hooks/b.sh', binding: 'pods', queue: 'main', module: 'echo' };
  const rusage = { userCpu: 0.01, sysCpu: 0.002, maxRssBytes: 1_048_576 };
  metrics.bindingCount({ hook: '000-a.sh' }, 2);
  metrics.bindingCount({ hook: 'hooks/b.sh', module: 'echo' }, 1);
  for (const outcome of ['success', 'error', 'allowed-error'] as const) {
    metrics.hookRun(hook, { seconds: 0.12, outcome, ...rusage });
    metrics.hookRun({ ...hook, module: 'echo' }, { seconds: 0.34, outcome, ...rusage });
  }
  metrics.moduleDiscoverError();
  metrics.hookMetricsRejected({ hook: 'hooks/b.sh', module: 'echo' }, 3);
  metrics.moduleRunError('echo');
  metrics.moduleDeleteError('gone');
  metrics.absentResource('echo', 'kaddon/Deployment/echo');
  metrics.helmReleaseRedeployed('echo');
  metrics.moduleRun('echo', 1.5);
  metrics.moduleHelm('echo', 'OperatorStartup', 0.8);
  metrics.helmOperation({ module: 'echo', activation: 'OperatorStartup', operation: 'upgrade' }, 0.6);
  metrics.convergence('OperatorStartup', 3.2);
  metrics.queueLength('main', 4);
  metrics.taskWaited({ queue: 'main', module: 'echo', hook: 'hooks/b.sh', binding: 'pods' }, 0.05);
  metrics.queueAction('main', 'AddLast', 0.0001);
  metrics.liveTick();
  metrics.jqFilter({ ...binding, kind: 'Pod' }, 0.002);
  metrics.kubeEvent({ ...binding, kind: 'Pod' }, 0.004);
  metrics.snapshot(binding, { objects: 3, bytes: 2048 });
  metrics.kubeRequestResult({ code: '200', method: 'GET', host: '127.0.0.1:6443' });
  metrics.kubeRequestLatency({ verb: 'GET', url: 'https://127.0.0.1:6443/api/v1/pods' }, 0.01);
  metrics.configValuesError();
  metrics.moduleRender('echo', 0.09);
  metrics.unresolvedVarReferences('echo', 1);
  metrics.gitRevision('0123456789abcdef0123456789abcdef01234567');
  metrics.gitSyncSucceeded(1_700_000_000);
  metrics.gitSyncError();
  metrics.moduleStatus('echo', { ready: false, reason: 'HookFailed' });
  metrics.helmOperationStarted('echo', 'deliver');
  metrics.driftedObjects('echo', 2);
  metrics.driftCorrected('echo', 2);
  metrics.driftBackoff('echo');
  metrics.notificationSent('on-call');
  metrics.notificationFailed('on-call', 'http');
  metrics.moduleMaintenance('echo', true);
}

describe('/metrics exposition', () => {
  const metrics = createOperatorMetrics({ prefix: PREFIX, queueActionsMetrics: true });
  const hooks = createHookMetricsStore({ isReserved: (family) => metrics.clashesWithBuiltIn(family) });
  let server: OperatorHttpServer;
  let scrape = '';

  before(async () => {
    recordEverything(metrics);
    const operations = parseHookMetrics(
      [
        '{"group":"hook1","name":"hook_metric","action":"add","value":1,"labels":{"kind":"pod"}}',
        '{"name":"common_metric","action":"set","value":100,"labels":{"source":"source1"}}',
        '{"name":"hook_duration","action":"observe","value":3,"buckets":[1,5]}',
      ].join('\n'),
    ).operations;
    assert.deepEqual(hooks.apply({ hook: 'hook1.sh' }, operations), []);
    server = createHttpServer({ address: '127.0.0.1', port: 0, sources: [metrics.registry, hooks.registry] });
    const { port } = await server.start();
    const response = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
    assert.equal(response.status, 200);
    scrape = await response.text();
  });
  after(() => server.stop());

  it('parses with promtool, whose only findings are the seed names it lints', () => {
    const result = spawnSync(findPromtool(), ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
    const findings = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
    assert.ok(
      result.status === 0 || result.status === 3,
      `promtool could not parse the scrape:\n${findings.join('\n')}`,
    );
    assert.deepEqual(findings.sort(), [...SEED_NAMES_PROMTOOL_DISLIKES].sort());
  });

  it('has every built-in metric with its TYPE and label names', () => {
    for (const spec of Object.values(METRIC_CATALOG)) {
      const name = PREFIX + spec.name;
      assert.match(scrape, new RegExp(`^# TYPE ${name} ${spec.type}$`, 'mu'), name);
      const sample = spec.type === 'histogram' ? `${name}_count` : name;
      const labels = new RegExp(`^${sample}(?:\\{([^}]*)\\})? `, 'mu').exec(scrape)?.[1] ?? '';
      const names = labels === '' ? [] : [...labels.matchAll(/(\w+)="/gu)].map((match) => match[1]);
      assert.deepEqual(names, spec.labels, `labels of ${name}`);
    }
  });

  it("serves the hooks' custom metrics on the same endpoint", () => {
    assert.match(scrape, /^# TYPE hook_metric counter\nhook_metric\{hook="hook1.sh",kind="pod"\} 1$/mu);
    assert.match(scrape, /^common_metric\{hook="hook1.sh",source="source1"\} 100$/mu);
    assert.match(scrape, /^hook_duration_bucket\{le="5",hook="hook1.sh"\} 1$/mu);
  });
});
