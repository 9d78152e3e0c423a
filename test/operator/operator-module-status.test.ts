import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  killOperatorTree,
  setOperatorConfig,
  startOperatorEnvironment,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-module-status';
const MODULES = '/apis/kaddon.dev/v1alpha1/modules';
const run = promisify(execFile);

let env: OperatorEnvironment;
let operator: E2eOperator;
let kubectl: string;

/**
 * On a cluster whose workloads progress: `healthy` (a Deployment that rolls out), `stuck` (a
 * Deployment whose nodeSelector matches no node until its values say otherwise), `optional` (a
 * ConfigMap) and `broken` (a beforeHelm hook that fails until `broken.fixed`), retried in its own
 * lane while the others go on (the default KADDON_MODULE_FAILURE_POLICY=isolate).
 */
before(async () => {
  env = await startOperatorEnvironment({
    namespace: NAMESPACE,
    prefix: 'module-status',
    withControllers: true,
  });
  kubectl = (await ensureHelm()).kubectl;
  const kustomization = (resources: string): string =>
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- ${resources}\n`;
  env.tree.write('modules/010-healthy', {
    'kustomization.yaml': kustomization('deployment.yaml'),
    'deployment.yaml': deployment('healthy', 'kubernetes.io/hostname: kwok-node-0'),
    'values.yaml': 'healthyEnabled: true\n',
  });
  env.tree.write('modules/020-stuck', {
    'kustomization.yaml': kustomization('deployment.yaml'),
    'deployment.yaml': deployment('stuck', 'kubernetes.io/hostname: $(stuck.node)'),
    'values.yaml': 'stuckEnabled: true\nstuck:\n  node: nowhere\n',
  });
  env.tree.write('modules/030-optional', {
    'kustomization.yaml': kustomization('state.yaml'),
    'state.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: optional-state\ndata:\n  a: "1"\n',
    'values.yaml': 'optionalEnabled: true\n',
  });
  const hook = env.tree.write('modules/040-broken', {
    'kustomization.yaml': kustomization('state.yaml'),
    'state.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken-state\ndata:\n  a: "1"\n',
    'values.yaml': 'brokenEnabled: true\nbroken:\n  fixed: false\n',
    'hooks/before-helm.mjs': [
      '#!/usr/bin/env node',
      "import { readFileSync } from 'node:fs';",
      'if (process.argv[2] === \'--config\') { console.log(\'{"configVersion":"v1","beforeHelm":10}\'); process.exit(0); }',
      "const values = JSON.parse(readFileSync(process.env.VALUES_PATH, 'utf8'));",
      "if (!values.broken.fixed) { console.error('broken: the setting broken.fixed is missing'); process.exit(1); }",
      '',
    ].join('\n'),
  });
  chmodSync(path.join(hook, 'hooks/before-helm.mjs'), 0o755);
  // module.yaml requirements (docs/modules.md): one on `stuck`, one on a module disabled from the start.
  env.tree.write('modules/050-dependent', {
    'kustomization.yaml': kustomization('state.yaml'),
    'state.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent-state\n',
    'values.yaml': 'dependentEnabled: true\n',
    'module.yaml': 'requirements:\n  modules:\n    stuck: "*"\n',
  });
  env.tree.write('modules/060-needs-off', {
    'kustomization.yaml': kustomization('state.yaml'),
    'state.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: needs-off-state\n',
    'values.yaml': 'needsOffEnabled: true\n',
    'module.yaml': 'requirements:\n  modules:\n    off: "*"\n',
  });
  env.tree.write('modules/070-off', {
    'kustomization.yaml': kustomization('state.yaml'),
    'state.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: off-state\n',
    'values.yaml': 'offEnabled: false\n',
  });
  operator = env.startOperator({
    forceKillAfterDelay: 30_000,
    extraEnv: { KADDON_HEALTH_TIMEOUT: '15s' },
  });
});
after(() => env.stop());

function deployment(name: string, nodeSelector: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      nodeSelector:
        ${nodeSelector}
      containers:
      - name: main
        image: registry.invalid/${name}:1
`;
}

async function readyOf(module: string): Promise<JsonObject | undefined> {
  const object = await env.api.request('GET', `${MODULES}/${module}`);
  const status = isJsonObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return conditions.find((condition) => condition.type === 'Ready');
}

async function waitForReason(module: string, reason: string, deadlineMs = 120_000): Promise<JsonObject> {
  return eventually(
    operator,
    `module ${module} Ready reason ${reason}`,
    async () => {
      const ready = await readyOf(module);
      return ready?.reason === reason ? ready : undefined;
    },
    deadlineMs,
  );
}

async function eventsAbout(module: string, reason: string): Promise<JsonObject[]> {
  const list = await env.api.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
  const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
  return items.filter(
    (event) => isJsonObject(event.regarding) && event.regarding.name === module && event.reason === reason,
  );
}

/**
 * The Events of `reason` about `module`, once there is one: an Event is written after the status
 * it goes with, so right after the status changed it may not be there yet on a busy machine.
 */
async function eventsOnceThere(module: string, reason: string): Promise<JsonObject[]> {
  return eventually(operator, `a ${reason} Event about module ${module}`, async () => {
    const events = await eventsAbout(module, reason);
    return events.length > 0 ? events : undefined;
  });
}

describe('Module objects, health and Events (against a cluster with controllers)', () => {
  it('kubectl wait --for=condition=Ready succeeds for the module whose Deployment rolls out', async () => {
    await eventually(operator, 'Module healthy exists', () => readyOf('healthy'));
    const { stdout } = await run(
      kubectl,
      [
        '--kubeconfig',
        env.cluster.kubeconfigPath,
        'wait',
        '--for=condition=Ready',
        'module/healthy',
        '--timeout=120s',
      ],
      { timeout: 130_000 },
    );
    assert.match(stdout, /module.kaddon.dev\/healthy condition met/);
    const { stdout: table } = await run(kubectl, [
      '--kubeconfig',
      env.cluster.kubeconfigPath,
      'get',
      'modules',
    ]);
    assert.match(table, /^NAME\s+ENABLED\s+READY\s+REASON\s+STATUS\s+AGE/m);
    assert.match(table, /^healthy\s+true\s+True\s+Succeeded\s+delivered; 1 object healthy/m);
  });

  it('a Deployment that cannot be scheduled turns into HealthCheckFailed naming it, after the health timeout', async () => {
    const ready = await waitForReason('stuck', 'HealthCheckFailed');
    assert.equal(ready.status, 'False');
    assert.match(ready.message as string, new RegExp(`Deployment ${NAMESPACE}/stuck: `));
    assert.equal((await eventsOnceThere('stuck', 'HealthCheckFailed')).length, 1);
  });

  it('a failing beforeHelm hook is HookFailed with its stderr, and its retries make one Event series', async () => {
    const ready = await waitForReason('broken', 'HookFailed');
    assert.equal(ready.status, 'False');
    assert.match(ready.message as string, /broken: the setting broken\.fixed is missing/);
    // Retried with backoff (5 s, 10 s): wait for a second failure to be counted.
    const series = await eventually(operator, 'a second HookFailed occurrence', async () => {
      const events = await eventsAbout('broken', 'HookFailed');
      const counted = events.find((event) => isJsonObject(event.series) && Number(event.series.count) >= 2);
      return counted === undefined ? undefined : events;
    });
    assert.equal(series.length, 1, 'one Event, its series counting the retries');
    const metrics = await scrapeMetrics(env.port);
    assert.equal(sample(metrics, 'addon_operator_module_ready', { module: 'broken' }), 0);
    assert.equal(
      sample(metrics, 'addon_operator_module_status_reason', { module: 'broken', reason: 'HookFailed' }),
      1,
    );
    assert.equal(sample(metrics, 'addon_operator_module_ready', { module: 'healthy' }), 1);
  });

  it('a module that requires another waits, DependencyNotReady, while that one is not Ready or disabled', async () => {
    const dependent = await waitForReason('dependent', 'DependencyNotReady');
    assert.equal(dependent.status, 'False');
    assert.equal(dependent.message, "waiting for module 'stuck' to be Ready");
    const needsOff = await waitForReason('needs-off', 'DependencyNotReady');
    assert.equal(needsOff.message, "waiting for module 'off', which is disabled, to be Ready");
    assert.equal((await readyOf('off'))?.reason, 'Disabled');
    const configMaps = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`);
    const names = (Array.isArray(configMaps.items) ? configMaps.items.filter(isJsonObject) : []).map(
      (item) => (isJsonObject(item.metadata) ? item.metadata.name : undefined),
    );
    assert.ok(!names.includes('dependent-state'), 'not delivered before the module it requires is Ready');
  });

  it('fixing each through the ConfigMap brings it to Ready without a restart', async () => {
    await setOperatorConfig(env.api, NAMESPACE, { broken: 'fixed: true\n', stuck: 'node: kwok-node-1\n' });
    await waitForReason('broken', 'Succeeded');
    await waitForReason('stuck', 'Succeeded');
    assert.equal((await eventsOnceThere('broken', 'Recovered')).length, 1);
    assert.equal((await eventsOnceThere('stuck', 'Healthy')).length, 1);
    // `stuck` Ready: the module that requires it runs now.
    await waitForReason('dependent', 'Succeeded');
  });

  it('a module disabled through the ConfigMap is Disabled; removed from the tree, its object goes', async () => {
    await setOperatorConfig(env.api, NAMESPACE, { optionalEnabled: 'false' });
    const ready = await waitForReason('optional', 'Disabled');
    assert.equal(ready.status, 'False');
    // Gone from the tree: the next operator's first converge removes its object (and its release).
    await killOperatorTree(operator);
    await rm(path.join(env.tree.root, 'modules/030-optional'), { recursive: true });
    operator = env.startOperator({ forceKillAfterDelay: 30_000, extraEnv: { KADDON_HEALTH_TIMEOUT: '15s' } });
    await eventually(operator, 'Module optional deleted', async () =>
      (await env.api.request('GET', `${MODULES}/optional`).then(
        () => false,
        () => true,
      ))
        ? true
        : undefined,
    );
    assert.ok(await readyOf('healthy'), 'the other modules keep theirs');
  });
});
