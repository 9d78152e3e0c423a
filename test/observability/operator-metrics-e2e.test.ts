import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  eventually,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
  stateModuleFiles,
} from '../operator/operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-metrics-e2e';
const WATCH_LABEL = 'e2e.kaddon.dev/metrics';
const DEADLINE_MS = 45_000;
const P = 'addon_operator_';
/** A module value that logs may show at debug level only. */
const SENTINEL = 'kaddon-sentinel-7f3a';

/** promtool's naming lint on names addon-operator documents (as test/operator/operator.test.ts). */
const SEED_NAMES_PROMTOOL_DISLIKES = [
  `${P}binding_count non-histogram and non-summary metrics should not have "_count" suffix`,
  `${P}convergence_seconds counter metrics should have "_total" suffix`,
  `${P}live_ticks counter metrics should have "_total" suffix`,
];

let env: OperatorEnvironment;
let operator: E2eOperator;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'metrics-e2e' });
  await writeWatcherModule(path.join(env.tree.root, 'modules/010-watcher'));
  await writeGlobalHook(path.join(env.tree.root, 'global-hooks'));
  operator = env.startOperator({
    forceKillAfterDelay: 20_000,
    extraEnv: {
      GLOBAL_HOOKS_DIR: path.join(env.tree.root, 'global-hooks'),
      LOG_TYPE: 'json',
      LOG_LEVEL: 'debug',
      LOG_NO_TIME: 'true',
    },
  });
});
after(() => env.stop());

/** An executable hook that prints `config` for --config and otherwise does nothing. */
async function writeHook(file: string, config: object): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const hook = `#!/usr/bin/env node
if (process.argv[2] === '--config') console.log(${JSON.stringify(JSON.stringify(config))});
`;
  await writeFile(file, hook);
  await chmod(file, 0o755);
}

/** A module whose hook follows labelled ConfigMaps through a jqFilter. */
async function writeWatcherModule(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'values.yaml'), `watcherEnabled: true\nwatcher:\n  token: ${SENTINEL}\n`);
  for (const [file, text] of Object.entries(stateModuleFiles(NAMESPACE, 'watcher', '  ready: "yes"\n')))
    await writeFile(path.join(dir, file), text);
  await writeHook(path.join(dir, 'hooks/watch.mjs'), {
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'watched',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: { nameSelector: { matchNames: [NAMESPACE] } },
        labelSelector: { matchLabels: { [WATCH_LABEL]: 'yes' } },
        jqFilter: '.metadata.name',
      },
    ],
  });
}

/** A global hook whose binding sees the test namespace only, so its snapshot holds one object. */
async function writeGlobalHook(dir: string): Promise<void> {
  await writeHook(path.join(dir, 'namespaces.mjs'), {
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'namespaces',
        apiVersion: 'v1',
        kind: 'Namespace',
        nameSelector: { matchNames: [NAMESPACE] },
        jqFilter: '.metadata.labels',
        queue: 'cluster-state',
      },
    ],
  });
}

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${env.port}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every sample of `name`, its labels parsed (no label value here contains `",`). */
function samples(text: string, name: string): Sample[] {
  return [...text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gmu'))].map((match) => ({
    labels: parseLabels(match[1] ?? ''),
    value: Number(match[2]),
  }));
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, key, value] of text.matchAll(/(\w+)="([^"]*)"/gu))
    if (key !== undefined) labels[key] = value ?? '';
  return labels;
}

/** The value of the sample of `name` whose labels are exactly `labels`. */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  return samples(text, name).find((sample) => isDeepEqual(sample.labels, labels))?.value;
}

function isDeepEqual(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function checkWithPromtool(text: string): void {
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(promtool.error, undefined, 'promtool on PATH (apt-get install -y prometheus)');
  const findings = `${promtool.stdout}${promtool.stderr}`.split('\n').filter((line) => line.trim() !== '');
  assert.ok(promtool.status === 0 || promtool.status === 3, `promtool:\n${findings.join('\n')}`);
  assert.deepEqual(
    findings.filter((line) => !SEED_NAMES_PROMTOOL_DISLIKES.includes(line)),
    [],
    'promtool findings',
  );
}

const WATCHED = { module: 'watcher', hook: 'hooks/watch.mjs', binding: 'watched', queue: 'main' };
const NAMESPACES = { module: '', hook: 'namespaces.mjs', binding: 'namespaces', queue: 'cluster-state' };

describe('kaddon operator /metrics against a real cluster (docs/observability.md "Metrics")', () => {
  it('records Kubernetes client, kubernetes binding and queue action metrics with their labels', async () => {
    await waitReady(operator, env.port, DEADLINE_MS);
    for (const name of ['one', 'two'])
      await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [WATCH_LABEL]: 'yes' } } },
      });
    const text = await eventually(
      operator,
      'two watch events handled by the module binding',
      async () => {
        const scraped = await scrape();
        const events = valueOf(scraped, `${P}kube_event_duration_seconds_count`, {
          ...WATCHED,
          kind: 'ConfigMap',
        });
        return (events ?? 0) >= 2 ? scraped : undefined;
      },
      DEADLINE_MS,
    );
    checkWithPromtool(text);

    // The filter ran on the first list (one call) and on each event.
    const kube = { ...WATCHED, kind: 'ConfigMap' };
    assert.ok((valueOf(text, `${P}kube_jq_filter_duration_seconds_count`, kube) ?? 0) >= 3, 'jqFilter runs');
    assert.equal(valueOf(text, `${P}kube_snapshot_objects`, WATCHED), 2);
    // Each item holds the object (keepFullObjectsInMemory) and the jqFilter result, in JSON bytes.
    let expectedBytes = 0;
    for (const name of ['one', 'two']) {
      const object = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`);
      expectedBytes += Buffer.byteLength(JSON.stringify(object)) + Buffer.byteLength(JSON.stringify(name));
    }
    assert.equal(valueOf(text, `${P}kube_snapshot_bytes`, WATCHED), expectedBytes);
    assert.equal(valueOf(text, `${P}kube_snapshot_objects`, NAMESPACES), 1, 'a global hook has module=""');
    const namespaceFilter = { ...NAMESPACES, kind: 'Namespace' };
    assert.ok((valueOf(text, `${P}kube_jq_filter_duration_seconds_count`, namespaceFilter) ?? 0) >= 1);

    const host = new URL(env.cluster.server).host;
    const results = samples(text, `${P}kubernetes_client_request_result_total`);
    assert.ok(
      results.some((s) => isDeepEqual(s.labels, { code: '200', method: 'GET', host }) && s.value > 0),
      `request results for ${host}: ${JSON.stringify(results)}`,
    );
    const listUrl = `https://${host}/api/v1/namespaces/%7Bnamespace%7D/configmaps?labelSelector=%7Bvalue%7D`;
    assert.ok(
      (valueOf(text, `${P}kubernetes_client_request_latency_seconds_count`, { verb: 'GET', url: listUrl }) ??
        0) >= 1,
      `latency of the ConfigMap list under its URL template in:\n${samples(
        text,
        `${P}kubernetes_client_request_latency_seconds_count`,
      )
        .map((s) => s.labels.url)
        .join('\n')}`,
    );

    const actions = samples(text, `${P}tasks_queue_action_duration_seconds_count`);
    assert.ok(
      actions.some(
        (s) => isDeepEqual(s.labels, { queue_name: 'main', queue_action: 'AddLast' }) && s.value > 0,
      ),
      `AddLast on main in ${JSON.stringify(actions.map((s) => s.labels))}`,
    );

    operator.process.kill('SIGTERM');
    const result = await operator.process;
    assert.equal(result.exitCode, 0, result.all);
    checkLogs(result.all);
  });
});

/**
 * LOG_TYPE json, LOG_LEVEL debug and LOG_NO_TIME as set above; the stable field names; no values above debug.
 */
function checkLogs(output: string): void {
  const entries = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.ok(entries.length > 0, `JSON log lines in:\n${output.slice(0, 2000)}`);
  assert.deepEqual(
    entries.filter((entry) => 'time' in entry),
    [],
    'LOG_NO_TIME leaves the time out',
  );
  const queued = entries.find(
    (entry) => entry.msg === 'kubernetes event queued' && entry.binding === 'watched',
  );
  assert.equal(queued?.level, 'debug');
  assert.deepEqual(
    { module: queued.module, hook: queued.hook, queue: queued.queue },
    { module: 'watcher', hook: 'hooks/watch.mjs', queue: 'main' },
  );
  assert.match(String(queued.task), /^ModuleHookRun:main:kubernetes:\S*hooks\/watch\.mjs:watched/u);
  assert.deepEqual(
    entries.filter((entry) => entry.level !== 'debug' && JSON.stringify(entry).includes(SENTINEL)),
    [],
    'values are not logged above debug',
  );
}
