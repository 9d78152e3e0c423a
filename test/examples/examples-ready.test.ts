import assert from 'node:assert/strict';
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import {
  killOperatorTree,
  setOperatorConfig,
  startE2eOperator,
  startOperatorEnvironment,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { nodeMonitorGracePeriodSeconds } from '../cluster/kube-controller-manager.ts';
import { repoRoot } from '../repo-root.ts';
import { notReady, readModules, waitModulesReady } from './module-readiness.ts';

/**
 * The bundled examples, delivered by `kaddon operator` to a cluster whose workloads progress, as a
 * new user runs them (examples/platform/README.md): every module becomes Ready and stays Ready.
 * Each example runs with its own operator and release namespace; the chart-module example goes
 * first, because an operator prunes the Module objects of modules not in its tree.
 */
const PLATFORM_NAMESPACE = 'kaddon-examples';
const CHART_NAMESPACE = 'kaddon-chart-module';
/** Every module of examples/platform: debug-tools, disabled there, is enabled through the ConfigMap. */
const platformModules = [
  'echo-server',
  'redis',
  'prometheus',
  'nightly-report',
  'debug-tools',
  'greeter',
  'platform-policy',
];
const chartModules = ['web', 'hello', 'policy'];
/** Where the examples' Pods run: what their modules and the chart's release namespace create. */
const workloadNamespaces = ['echo', 'redis', 'monitoring', 'greeter', CHART_NAMESPACE];
/**
 * Three node monitor grace periods: a Node whose Lease were not renewed, or a Pod or module that
 * flapped, would show within the first.
 */
const STEADY_MS = 3 * nodeMonitorGracePeriodSeconds * 1000;
/** A first delivery on a loaded 2-core machine: helm, hooks and roll-outs of every module. */
const CONVERGE_MS = 300_000;

let env: OperatorEnvironment;

before(async () => {
  env = await startOperatorEnvironment({
    namespace: PLATFORM_NAMESPACE,
    prefix: 'examples-ready',
    withControllers: true,
  });
  await env.api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CHART_NAMESPACE } },
  });
  await cp(path.join(repoRoot, 'examples/platform/modules'), path.join(env.tree.root, 'modules'), {
    recursive: true,
  });
  await cp(path.join(repoRoot, 'examples/chart-module/modules'), path.join(env.tree.root, 'chart-modules'), {
    recursive: true,
  });
});
after(() => env.stop());

async function list(apiPath: string): Promise<JsonObject[]> {
  const found = await env.api.request('GET', apiPath);
  return Array.isArray(found.items) ? found.items.filter(isJsonObject) : [];
}

function conditionOf(object: JsonObject, type: string): string | undefined {
  const status = isJsonObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  const found = conditions.find((condition) => condition.type === type)?.status;
  return typeof found === 'string' ? found : undefined;
}

function nameOf(object: JsonObject): string {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  return typeof metadata.namespace === 'string' ? `${metadata.namespace}/${name}` : name;
}

/** Nodes whose Ready condition is not True, as `kubectl get nodes` shows NotReady. */
async function notReadyNodes(): Promise<string[]> {
  const nodes = await list('/api/v1/nodes');
  return nodes.filter((node) => conditionOf(node, 'Ready') !== 'True').map(nameOf);
}

/** Pods of the examples that neither completed nor run Ready. */
async function notReadyPods(): Promise<string[]> {
  const pods = (await Promise.all(workloadNamespaces.map((ns) => list(`/api/v1/namespaces/${ns}/pods`)))).flat();
  return pods
    .filter((pod) => {
      const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
      return phase !== 'Succeeded' && !(phase === 'Running' && conditionOf(pod, 'Ready') === 'True');
    })
    .map(nameOf);
}

describe('the examples on a cluster whose workloads progress', () => {
  it('delivers examples/chart-module: web, hello and policy become Ready', async () => {
    const workDir = path.join(env.tree.root, 'chart-work');
    await mkdir(workDir, { recursive: true });
    const operator = startE2eOperator({
      modulesDir: path.join(env.tree.root, 'chart-modules'),
      namespace: CHART_NAMESPACE,
      kubeconfigPath: env.cluster.kubeconfigPath,
      helmPath: env.helmPath,
      workDir,
      port: env.port,
      forceKillAfterDelay: 30_000,
    });
    try {
      await waitModulesReady(operator, env.api, chartModules, CONVERGE_MS);
    } finally {
      await killOperatorTree(operator);
    }
  });

  it('delivers examples/platform, debug-tools enabled through the ConfigMap: every module Ready', async () => {
    await setOperatorConfig(env.api, PLATFORM_NAMESPACE, { debugToolsEnabled: 'true' });
    const operator = env.startOperator({ forceKillAfterDelay: 30_000 });
    await waitModulesReady(operator, env.api, platformModules, CONVERGE_MS);
  });

  it('keeps every module, Pod and Node Ready for three node monitor grace periods, and no Node was ever NotReady', async () => {
    const until = Date.now() + STEADY_MS;
    while (Date.now() < until) {
      assert.deepEqual(notReady(await readModules(env.api), platformModules), [], 'Modules not Ready');
      assert.deepEqual(await notReadyNodes(), [], 'Nodes not Ready');
      assert.deepEqual(await notReadyPods(), [], 'Pods not Ready');
      await sleep(5_000);
    }
    const nodeEvents = await list('/api/v1/events?fieldSelector=reason%3DNodeNotReady');
    assert.deepEqual(nodeEvents.map(nameOf), [], 'NodeNotReady Events');

    // The chart example's operator is gone, its Deployment still runs: two replicas, Available.
    const web = await env.api.request('GET', `/apis/apps/v1/namespaces/${CHART_NAMESPACE}/deployments/web`);
    assert.equal(conditionOf(web, 'Available'), 'True');
    assert.equal(isJsonObject(web.status) ? web.status.readyReplicas : undefined, 2);
  });
});
