import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ResId } from '../../src/core/res-id.ts';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { KubeApiError, KubeClient, resourcePath } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { createCapturingLogger } from '../../src/observability/logger.ts';
import { ResourceMonitor, type ResourceMonitorOptions } from '../../src/runtime/operator/resource-monitor.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NS = 'rm-shop';
const CLUSTER_ROLE_NAME = 'rm-shop-reader';

let cluster: TestCluster;
let api: KubeClient;

before(async () => {
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
});
after(async () => {
  await cluster.stop();
});

interface LiveObject {
  readonly id: ResId;
  readonly body: Record<string, unknown>;
}

/** The Deployment names no namespace: helm would put it in the release namespace, NS here. */
const OBJECTS = {
  configMap: {
    id: { group: '', version: 'v1', kind: 'ConfigMap', name: 'settings', namespace: NS },
    body: { data: { color: 'blue' } },
  },
  deployment: {
    id: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'web', namespace: '' },
    body: {
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    },
  },
  clusterRole: {
    id: {
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'ClusterRole',
      name: CLUSTER_ROLE_NAME,
      namespace: '',
    },
    body: { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
  },
} satisfies Record<string, LiveObject>;

const IDS = {
  configMap: `${NS}/ConfigMap/settings`,
  deployment: `${NS}/Deployment/web`,
  clusterRole: `/ClusterRole/${CLUSTER_ROLE_NAME}`,
};

const ALL = [OBJECTS.configMap.id, OBJECTS.deployment.id, OBJECTS.clusterRole.id];

async function pathOf(object: LiveObject, withName: boolean): Promise<string> {
  const { id } = object;
  const resource = await api.resolveResource(id.group ? `${id.group}/${id.version}` : id.version, id.kind);
  return resourcePath(resource, id.namespace || NS, withName ? id.name : undefined);
}

/** Creates the object unless it is there. */
async function ensure(object: LiveObject): Promise<void> {
  const { id } = object;
  try {
    await api.request('GET', await pathOf(object, true));
  } catch (error: unknown) {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    const apiVersion = id.group ? `${id.group}/${id.version}` : id.version;
    await api.request('POST', await pathOf(object, false), {
      body: { apiVersion, kind: id.kind, metadata: { name: id.name }, ...object.body },
    });
  }
}

async function remove(object: LiveObject): Promise<void> {
  await api.request('DELETE', await pathOf(object, true));
}

interface Setup {
  readonly monitor: ResourceMonitor;
  readonly reports: [string, readonly string[]][];
}

function monitorFor(extra: Partial<ResourceMonitorOptions> = {}): Setup {
  const reports: [string, readonly string[]][] = [];
  const monitor = new ResourceMonitor({
    api,
    intervalMs: 60_000,
    defaultNamespace: NS,
    logger: createCapturingLogger('error'),
    onMissing: (module, ids) => reports.push([module, ids]),
    ...extra,
  });
  return { monitor, reports };
}

describe('ResourceMonitor against a real kube-apiserver', () => {
  let setup: Setup;
  beforeEach(async () => {
    for (const object of Object.values(OBJECTS)) await ensure(object);
    setup = monitorFor();
    setup.monitor.delivered('shop', ALL);
  });
  after(async () => {
    await remove(OBJECTS.clusterRole).catch(() => undefined);
  });

  it('reports exactly the deleted objects, a cluster-scoped one included, once', async () => {
    const { monitor, reports } = setup;
    assert.deepEqual(await monitor.checkNow('shop'), []);
    await remove(OBJECTS.configMap);
    assert.deepEqual(await monitor.checkNow('shop'), [IDS.configMap]);
    assert.deepEqual(await monitor.checkNow('shop'), []);
    await remove(OBJECTS.clusterRole);
    await remove(OBJECTS.deployment);
    assert.deepEqual(await monitor.checkNow('shop'), [IDS.clusterRole, IDS.deployment]);
    assert.deepEqual(reports, [
      ['shop', [IDS.configMap]],
      ['shop', [IDS.clusterRole, IDS.deployment]],
    ]);
  });

  it("does not report a deletion by the module's own hook; the next delivery resets that", async () => {
    const { monitor, reports } = setup;
    await remove(OBJECTS.deployment);
    await monitor.afterModuleHook('shop');
    assert.deepEqual(await monitor.checkNow('shop'), []);
    await remove(OBJECTS.configMap);
    assert.deepEqual(await monitor.checkNow('shop'), [IDS.configMap]);
    monitor.delivered('shop', ALL);
    assert.deepEqual(await monitor.checkNow('shop'), [IDS.configMap, IDS.deployment]);
    assert.deepEqual(reports.length, 2);
  });

  it('does not check a paused module until it is resumed', async () => {
    const { monitor, reports } = setup;
    monitor.pause('shop');
    await remove(OBJECTS.clusterRole);
    assert.deepEqual(await monitor.checkNow('shop'), []);
    monitor.resume('shop');
    assert.deepEqual(await monitor.checkNow('shop'), [IDS.clusterRole]);
    assert.deepEqual(reports, [['shop', [IDS.clusterRole]]]);
  });

  it('reports on its own ticks until stopped', async () => {
    let reported: (ids: readonly string[]) => void = () => undefined;
    const missing = new Promise<readonly string[]>((resolve) => (reported = resolve));
    const { monitor } = monitorFor({
      intervalMs: 100,
      onMissing: (_module, ids) => {
        reported(ids);
      },
    });
    monitor.delivered('shop', ALL);
    monitor.start();
    try {
      await remove(OBJECTS.deployment);
      assert.deepEqual(await missing, [IDS.deployment]);
    } finally {
      await monitor.stop();
    }
  });

  it('heals a helm release: deliver with resourcesMissing recreates the object, the report is reset', async () => {
    const helm = new HelmClient({
      helmPath: (await ensureHelm()).helm,
      kubeconfigPath: cluster.kubeconfigPath,
    });
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: healed\ndata:\n  a: b\n';
    const healedId: ResId = { group: '', version: 'v1', kind: 'ConfigMap', name: 'healed', namespace: '' };
    const unexpected: (string | undefined)[] = [];
    const { monitor, reports } = monitorFor({
      release: {
        status: (module) => helm.status(module, NS),
        onUnexpectedStatus: (_module, status) => unexpected.push(status),
      },
    });
    const deliver = (resourcesMissing: boolean) =>
      deliverModule(
        { module: 'heal', namespace: NS, manifest, resourcesMissing },
        { helm, timeoutSeconds: 60 },
      );
    try {
      await deliver(false);
      monitor.delivered('heal', [healedId]);
      assert.deepEqual(await monitor.checkNow('heal'), []);
      await api.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/healed`);
      assert.deepEqual(await monitor.checkNow('heal'), [`${NS}/ConfigMap/healed`]);
      const healed = await deliver(true);
      assert.equal(healed.outcome === 'upgraded' && healed.reason, 'resources-missing');
      monitor.delivered('heal', [healedId]);
      assert.deepEqual(await monitor.checkNow('heal'), []);
      await helm.uninstall('heal', NS);
      assert.deepEqual(await monitor.checkNow('heal'), [`${NS}/ConfigMap/healed`]);
      assert.deepEqual(unexpected, [undefined]);
      assert.equal(reports.length, 2);
    } finally {
      await helm.uninstall('heal', NS).catch(() => undefined);
    }
  });
});
