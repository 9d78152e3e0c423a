import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { forEachLimited } from '../src/core/for-each-limited.ts';
import type { JsonObject } from '../src/core/json.ts';
import { idOf } from '../src/core/res-id.ts';
import { objectTarget, releaseObject, serverApply } from '../src/delivery/drift/release-objects.ts';
import { KubeClient } from '../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../src/delivery/kube-connection.ts';
import { createCapturingLogger } from '../src/observability/logger.ts';
import { DriftCheck } from '../src/runtime/operator/drift-check.ts';
import { ResourceMonitor } from '../src/runtime/operator/resource-monitor.ts';
import { startTestCluster } from '../test/cluster/test-cluster.ts';

/**
 * `npm run bench:drift -- [--modules 100]`: the cost of one drift check interval (docs/drift.md), against
 * the real test cluster. Each module's release holds a Deployment, a Service and a ConfigMap, applied
 * as helm applies them (server-side, field manager `helm`). Prints API requests and CPU time of one
 * check of every module: the first one after start (every object dry-run once), one when nothing
 * drifted, one after 10 objects were edited, and the peer in the same run: addon-operator's check for
 * deleted objects alone (KADDON_DRIFT_MODE=off) over the same releases.
 */
const { values } = parseArgs({ options: { modules: { type: 'string', default: '100' } } });
const MODULES = Number(values.modules);
const NAMESPACE = 'kaddon-bench-drift';

function objectsOf(module: string): JsonObject[] {
  const labels = { app: module };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: module, namespace: NAMESPACE, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: 'main', image: `${module}:1`, ports: [{ containerPort: 8080 }] }] },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: module, namespace: NAMESPACE, labels },
      spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${module}-settings`, namespace: NAMESPACE, labels },
      data: { color: 'blue', size: 'small' },
    },
  ];
}

let requests = 0;
const cluster = await startTestCluster();
try {
  const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath), {
    metrics: {
      kubeRequestResult: () => {
        requests++;
      },
      kubeRequestLatency: () => undefined,
    },
  });
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
  const modules = Array.from({ length: MODULES }, (_, index) => `m${String(index).padStart(4, '0')}`);
  const all = modules.flatMap((module) => objectsOf(module).map((object) => ({ module, object })));
  await forEachLimited(all, 8, async ({ module, object }) => {
    const desired = releaseObject(object, module, NAMESPACE);
    const target = await objectTarget(api, desired, NAMESPACE);
    if (target) await serverApply(api, target, desired, { dryRun: false });
  });
  const logger = createCapturingLogger('error');
  const monitor = (drift: DriftCheck | undefined): ResourceMonitor => {
    const made = new ResourceMonitor({
      api,
      intervalMs: 3_600_000,
      defaultNamespace: NAMESPACE,
      logger,
      onMissing: () => undefined,
      ...(drift ? { drift } : {}),
    });
    for (const module of modules) {
      const objects = objectsOf(module);
      made.delivered(
        module,
        objects.map((object) => idOf(object)),
        { desired: objects },
      );
    }
    return made;
  };
  const drift = new DriftCheck({
    mode: 'correct',
    api,
    namespace: NAMESPACE,
    logger,
    ignoreRules: () => [],
    onDrift: () => undefined,
  });
  const withDrift = monitor(drift);
  const absenceOnly = monitor(undefined);
  const measure = async (what: string, target: ResourceMonitor): Promise<void> => {
    requests = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const module of modules) await target.checkNow(module);
    const used = process.cpuUsage(cpu);
    const wall = performance.now() - started;
    console.log(
      `${what.padEnd(44)} ${String(requests).padStart(6)} requests  ${((used.user + used.system) / 1000).toFixed(0).padStart(6)} ms CPU  ${wall.toFixed(0).padStart(6)} ms wall`,
    );
  };
  console.log(`drift check of ${MODULES} modules, ${all.length} objects (one check of every module):`);
  await measure('first check (every object dry-run once)', withDrift);
  await measure('nothing drifted (steady state)', withDrift);
  await measure('peer: deleted-objects check only (mode off)', absenceOnly);
  for (const module of modules.slice(0, 10))
    await api.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/${module}-settings`, {
      body: { data: { color: 'red' } },
      contentType: 'application/merge-patch+json',
    });
  await measure('10 ConfigMaps edited (found and corrected)', withDrift);
  await measure('nothing drifted again', withDrift);
} finally {
  await cluster.stop();
}
