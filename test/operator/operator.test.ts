import assert from 'node:assert/strict';
import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { isJsonObject } from '../../src/core/json.ts';
import { runCli } from '../run-cli.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
  stateModuleFiles,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-operator-e2e';
const ROOT = path.resolve(import.meta.dirname, '../..');

let env: OperatorEnvironment;
let operator: E2eOperator;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-e2e' });
  const modules = path.join(env.tree.root, 'modules');
  await cp(path.join(ROOT, 'examples/platform/modules'), modules, { recursive: true });
  await writeWatcherModule(path.join(modules, '070-watcher'));
  // A chart module (templates/ only, chart synthesized as addon-operator does), delivered as it renders.
  await cp(path.join(ROOT, 'examples/chart-module/modules/020-hello'), path.join(modules, '080-hello'), {
    recursive: true,
  });
  await writeFile(
    path.join(modules, '080-hello/values.yaml'),
    'helloEnabled: true\nhello:\n  greeting: hello from a chart\n',
  );
  operator = env.startOperator({
    forceKillAfterDelay: 30_000,
    // addon-operator's auto-healing (a helm upgrade of the module's release) is what this file pins;
    // kaddon's default drift correction is tested in operator-drift.test.ts.
    extraEnv: { KADDON_RESOURCES_MONITOR_INTERVAL: '1s', KADDON_DRIFT_MODE: 'off' },
  });
});
after(() => env.stop());

const WATCH_LABEL = 'e2e.kaddon.dev/watch';

/**
 * A module whose hook follows labelled ConfigMaps (kubernetes binding) and writes their count into
 * `watcher.count`, which its ConfigMap `watcher-state` shows, and into ConfigMap `watcher-report`
 * through $KUBERNETES_PATCH_PATH; a schedule binding every second appends a line to `ticks.log`.
 */
async function writeWatcherModule(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'hooks'), { recursive: true });
  await writeFile(path.join(dir, 'values.yaml'), 'watcherEnabled: true\nwatcher:\n  count: -1\n');
  for (const [file, text] of Object.entries(
    stateModuleFiles(NAMESPACE, 'watcher', '  count: "$(watcher.count)"\n'),
  ))
    await writeFile(path.join(dir, file), text);
  const config = {
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'watched',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: { nameSelector: { matchNames: [NAMESPACE] } },
        labelSelector: { matchLabels: { [WATCH_LABEL]: 'yes' } },
        executeHookOnEvent: ['Added', 'Deleted'],
        includeSnapshotsFrom: ['watched'],
        jqFilter: '.metadata.name',
      },
    ],
    schedule: [{ name: 'every-second', crontab: '*/1 * * * * *', queue: 'ticks' }],
  };
  const hook = `#!/usr/bin/env node
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
if (process.argv[2] === '--config') {
  console.log(${JSON.stringify(JSON.stringify(config))});
  process.exit(0);
}
const contexts = JSON.parse(readFileSync(process.env.BINDING_CONTEXT_PATH, 'utf8'));
const last = contexts.at(-1);
if (last.type === 'Schedule') {
  appendFileSync(${JSON.stringify(path.join(dir, 'ticks.log'))}, 'tick\\n');
  process.exit(0);
}
const count = last.snapshots.watched.length;
writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify([{ op: 'add', path: '/watcher/count', value: count }]));
const report = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watcher-report', namespace: ${JSON.stringify(NAMESPACE)} }, data: { count: String(count) } };
writeFileSync(process.env.KUBERNETES_PATCH_PATH, JSON.stringify({ operation: 'CreateOrUpdate', object: report }) + '\\n');
`;
  await writeFile(path.join(dir, 'hooks/watch.mjs'), hook);
  await chmod(path.join(dir, 'hooks/watch.mjs'), 0o755);
}

async function tickCount(): Promise<number> {
  const log = path.join(env.tree.root, 'modules/070-watcher/ticks.log');
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

async function revision(release: string): Promise<number | undefined> {
  return (await env.helm.status(release, NAMESPACE))?.revision;
}

/** Whether Deployment echo-server carries the label the platform-policy Component adds. */
async function ownerLabel(): Promise<boolean> {
  const list = await env.api.request('GET', '/apis/apps/v1/deployments', {
    query: { fieldSelector: 'metadata.name=echo-server' },
  });
  const item: unknown = Array.isArray(list.items) ? list.items[0] : undefined;
  const labels = isJsonObject(item) && isJsonObject(item.metadata) ? item.metadata.labels : undefined;
  return isJsonObject(labels) && 'platform.example.com/owner' in labels;
}

describe('kaddon operator against a real cluster and helm', () => {
  it('converges the example tree, follows ConfigMap edits and stops on SIGTERM', async () => {
    const startedAt = Date.now();
    await waitReady(operator, env.port);
    console.log(`# time from start to first convergence (examples/platform): ${Date.now() - startedAt} ms`);

    // docs/lifecycle.md steps 5, 9, 12: Synchronization before the first release, then an event re-runs it.
    assert.match(await env.helm.getManifest('watcher', NAMESPACE), /count: "0"/);
    const watcherRevision = (await revision('watcher')) ?? 0;
    await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'watched-one', labels: { [WATCH_LABEL]: 'yes' } },
      },
    });
    await eventually(operator, 'watcher release with count 1', async () =>
      ((await revision('watcher')) ?? 0) > watcherRevision &&
      /count: "1"/.test(await env.helm.getManifest('watcher', NAMESPACE))
        ? true
        : undefined,
    );
    // docs/hooks.md "Objects from hooks": created on Synchronization, updated by the event's run.
    const report = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/watcher-report`);
    assert.deepEqual(report.data, { count: '1' });
    // docs/lifecycle.md step 10: the schedule binding runs every second.
    await eventually(operator, 'two schedule runs', async () =>
      (await tickCount()) >= 2 ? true : undefined,
    );

    const releases = await env.helm.list(NAMESPACE);
    for (const module of ['echo-server', 'redis', 'prometheus', 'nightly-report', 'greeter', 'hello'])
      assert.ok(releases.includes(module), `release ${module} in ${releases.join(', ')}`);
    assert.ok(!releases.includes('debug-tools'), 'a disabled module has no release');
    const hello = await env.helm.getManifest('hello', NAMESPACE);
    assert.match(hello, /greeting: hello from a chart/);
    assert.match(hello, new RegExp(`namespace: ${NAMESPACE}`), '.Release.Namespace is the release namespace');
    assert.equal(await revision('echo-server'), 1);
    const deployments = await env.api.request('GET', '/apis/apps/v1/deployments', {
      query: { fieldSelector: 'metadata.name=echo-server' },
    });
    assert.ok(
      Array.isArray(deployments.items) && deployments.items.length === 1,
      'Deployment echo-server exists',
    );

    await checkAutoHealing();

    await setOperatorConfig(env.api, NAMESPACE, { greeter: 'size: medium\n' });
    await eventually(operator, 'greeter revision 2', async () =>
      (await revision('greeter')) === 2 ? true : undefined,
    );
    assert.equal(await revision('echo-server'), 1, 'another module is not upgraded');

    await setOperatorConfig(env.api, NAMESPACE, { redisEnabled: 'false' });
    await eventually(operator, 'redis uninstalled', async () =>
      (await env.helm.list(NAMESPACE)).includes('redis') ? undefined : true,
    );

    assert.equal(await ownerLabel(), true, 'the cross-cutting module labels echo-server');
    // The cross-cutting module's own values change its patches: the modules it patches run too.
    const echoRuns = async (): Promise<number> =>
      sample(await scrape(), 'addon_operator_module_run_seconds_count', { module: 'echo-server' }) ?? 0;
    const runsBefore = await echoRuns();
    await setOperatorConfig(env.api, NAMESPACE, { platformPolicy: 'team: sre\n' });
    await eventually(operator, 'echo-server upgraded with the new owner label', async () =>
      (await revision('echo-server')) === 2 &&
      /platform\.example\.com\/owner: sre/u.test(await env.helm.getManifest('echo-server', NAMESPACE))
        ? true
        : undefined,
    );
    // The run's metric is recorded when the ModuleRun ends, after afterHelm: a moment after the upgrade.
    await eventually(operator, 'echo-server ran (its hooks too), not only its release', async () =>
      (await echoRuns()) > runsBefore ? true : undefined,
    );
    await setOperatorConfig(env.api, NAMESPACE, { platformPolicyEnabled: 'false' });
    await eventually(operator, 'platform-policy patches reverted in echo-server', async () =>
      (await ownerLabel()) ? undefined : true,
    );
    assert.equal(await revision('echo-server'), 3);
    await eventually(operator, 'platform-policy uninstalled', async () =>
      (await env.helm.list(NAMESPACE)).includes('platform-policy') ? undefined : true,
    );

    await checkMetricsAndDebugSocket();
    await checkInvalidConfigIgnored();

    operator.process.kill('SIGTERM');
    const result = await operator.process;
    assert.equal(result.exitCode, 0, result.all);
  });
});

/**
 * promtool's naming lint on names addon-operator documents (as
 * test/observability/metrics-exposition.test.ts).
 */
const SEED_NAMES_PROMTOOL_DISLIKES = [
  'addon_operator_binding_count non-histogram and non-summary metrics should not have "_count" suffix',
  'addon_operator_convergence_seconds counter metrics should have "_total" suffix',
  'addon_operator_live_ticks counter metrics should have "_total" suffix',
];

function scrape(): Promise<string> {
  return scrapeMetrics(env.port);
}

/**
 * docs/observability.md "Metrics" on /metrics, and the debug socket (docs/observability.md "Debug socket")
 * over the CLI.
 */
async function checkMetricsAndDebugSocket(): Promise<void> {
  const text = await scrape();
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const findings = `${promtool.stdout}${promtool.stderr}`.split('\n').filter((line) => line.trim() !== '');
  assert.ok(promtool.status === 0 || promtool.status === 3, `promtool:\n${findings.join('\n')}`);
  assert.deepEqual(
    findings.filter((line) => !SEED_NAMES_PROMTOOL_DISLIKES.includes(line)),
    [],
    'promtool findings',
  );
  const P = 'addon_operator_';
  const watcherRuns = sample(text, `${P}module_hook_run_seconds_count`, { module: 'watcher', queue: 'main' });
  assert.ok((watcherRuns ?? 0) >= 1, 'module hook runs of watcher');
  assert.ok((sample(text, `${P}module_hook_run_success_total`, { module: 'watcher' }) ?? 0) >= 1);
  assert.ok((sample(text, `${P}module_hook_run_seconds_count`, { queue: 'ticks' }) ?? 0) >= 1, 'ticks queue');
  assert.ok((sample(text, `${P}module_run_seconds_count`, { module: 'greeter' }) ?? 0) >= 2, 'greeter runs');
  assert.ok((sample(text, `${P}helm_operation_seconds_count`, { operation: 'uninstall' }) ?? 0) >= 1);
  assert.equal(sample(text, `${P}convergence_total`, { activation: 'OperatorStartup' }), 1);
  assert.ok((sample(text, `${P}convergence_seconds`, { activation: 'OperatorStartup' }) ?? 0) > 0);
  assert.notEqual(sample(text, `${P}tasks_queue_length`, { queue: 'main' }), undefined, 'main queue length');
  assert.notEqual(sample(text, `${P}task_wait_in_queue_seconds_total`, { queue: 'main' }), undefined);
  assert.equal(sample(text, `${P}binding_count`, { module: 'watcher' }), 2, 'kubernetes + schedule');

  const socket = ['--debug-unix-socket', path.join(env.tree.root, 'debug.socket')];
  const modules = await runCli(['module', 'list', '-o', 'json', ...socket]);
  assert.equal(modules.code, 0, modules.stderr);
  const list = JSON.parse(modules.stdout) as {
    enabledModules: string[];
    modules: { name: string; enabled: boolean; state: string }[];
  };
  assert.ok(
    list.enabledModules.includes('greeter') && !list.enabledModules.includes('redis'),
    modules.stdout,
  );
  assert.deepEqual(
    list.modules.find((module) => module.name === 'echo-server'),
    { name: 'echo-server', enabled: true, state: 'Ready' },
  );
  assert.equal(list.modules.find((module) => module.name === 'debug-tools')?.enabled, false);
  const queues = await runCli(['queue', 'list', ...socket]);
  assert.equal(queues.code, 0, queues.stderr);
  assert.match(queues.stdout, /^Summary:\n- 'main' queue: \d+ tasks?\.$/mu);
  assert.match(queues.stdout, /^- total \d+ tasks? to handle\.$/mu);
}

/**
 * docs/lifecycle.md "Helm delivery", auto-healing: managed objects deleted from the cluster (a namespaced one
 * and a cluster-scoped one) come back by a helm upgrade of their module's release only.
 */
async function checkAutoHealing(): Promise<void> {
  const prometheus = (await revision('prometheus')) ?? 0;
  const echo = await revision('echo-server');
  const configMap = '/api/v1/namespaces/monitoring/configmaps/prometheus-config';
  const clusterRole = '/apis/rbac.authorization.k8s.io/v1/clusterroles/prometheus-discovery';
  await env.api.request('DELETE', configMap);
  await env.api.request('DELETE', clusterRole);
  await eventually(operator, 'deleted objects recreated', async () => {
    const back = await Promise.all(
      [configMap, clusterRole].map((url) =>
        env.api.request('GET', url).then(
          () => true,
          () => false,
        ),
      ),
    );
    return back.every(Boolean) ? true : undefined;
  });
  assert.ok(((await revision('prometheus')) ?? 0) > prometheus, 'the prometheus release was upgraded');
  assert.equal(await revision('echo-server'), echo, 'another release is not upgraded');
  // The monitor checks a module's objects one by one: the two deletes may fall on either side of
  // one check, and then one upgrade brings both back while only one was seen absent.
  const text = await scrape();
  const counted = ['monitoring/ConfigMap/prometheus-config', '/ClusterRole/prometheus-discovery'].map(
    (resource) =>
      sample(text, 'addon_operator_modules_absent_resources_total', { module: 'prometheus', resource }) ?? 0,
  );
  if (counted.every((count) => count === 0))
    console.log(`# no absent-resources count; operator output:\n${operator.tail()}`);
  assert.ok(
    counted.some((count) => count >= 1),
    'modules_absent_resources_total counts a deleted object of the module',
  );
}

/** An edit that does not parse is counted and ignored; the next valid edit still applies. */
async function checkInvalidConfigIgnored(): Promise<void> {
  const errors = (): Promise<number> =>
    scrape().then((text) => sample(text, 'addon_operator_config_values_errors_total') ?? 0);
  const before = await errors();
  const greeter = await revision('greeter');
  await setOperatorConfig(env.api, NAMESPACE, { greeter: 'size: [unclosed\n' });
  await eventually(operator, 'config_values_errors_total incremented', async () =>
    (await errors()) > before ? true : undefined,
  );
  assert.equal(await revision('greeter'), greeter, 'an invalid edit changes no release');
  await setOperatorConfig(env.api, NAMESPACE, { greeter: 'size: large\n' });
  await eventually(operator, 'greeter upgraded after a valid edit', async () =>
    ((await revision('greeter')) ?? 0) > (greeter ?? 0) ? true : undefined,
  );
}
