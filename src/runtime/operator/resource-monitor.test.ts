import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ResId } from '../../core/res-id.ts';
import { KubeApiError, type ApiResource } from '../../delivery/kube-client.ts';
import { createCapturingLogger, type CapturingLogger } from '../../observability/logger.ts';
import {
  JITTER_SHARE,
  ResourceMonitor,
  type MonitorApi,
  type ResourceMonitorOptions,
} from './resource-monitor.ts';

const RESOURCES: readonly ApiResource[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', name: 'configmaps', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', name: 'deployments', namespaced: true },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    name: 'clusterroles',
    namespaced: false,
  },
];

/** Objects by API path; a path in `failing` answers 500, a kind not in RESOURCES is unknown to discovery. */
class FakeApi implements MonitorApi {
  readonly existing = new Set<string>();
  readonly failing = new Set<string>();
  /** While set, every GET waits for it: a check held in flight. */
  gate: Promise<void> | undefined;

  request(method: string, apiPath: string): Promise<Record<string, never>> {
    return (async () => {
      await this.gate;
      if (this.failing.has(apiPath))
        throw new KubeApiError(method, apiPath, 500, 'InternalError', 'etcd down');
      if (!this.existing.has(apiPath)) throw new KubeApiError(method, apiPath, 404, 'NotFound', 'not found');
      return {};
    })();
  }

  resolveResource(apiVersion: string, kind: string): Promise<ApiResource> {
    const found = RESOURCES.find(
      (r) => r.kind === kind && [r.group, r.version].filter(Boolean).join('/') === apiVersion,
    );
    return found
      ? Promise.resolve(found)
      : Promise.reject(new KubeApiError('GET', `/apis/${apiVersion}`, 404, 'NotFound', `no kind ${kind}`));
  }
}

const CONFIG_MAP: ResId = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  name: 'settings',
  namespace: 'shop',
};
const DEPLOYMENT: ResId = { group: 'apps', version: 'v1', kind: 'Deployment', name: 'web', namespace: '' };
const CLUSTER_ROLE: ResId = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  name: 'reader',
  namespace: '',
};
const PATHS = {
  configMap: '/api/v1/namespaces/shop/configmaps/settings',
  deployment: '/apis/apps/v1/namespaces/kaddon/deployments/web',
  clusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles/reader',
};
const IDS = {
  configMap: 'shop/ConfigMap/settings',
  deployment: 'kaddon/Deployment/web',
  clusterRole: '/ClusterRole/reader',
};

interface Harness {
  readonly api: FakeApi;
  readonly monitor: ResourceMonitor;
  readonly reports: [string, readonly string[]][];
  readonly absent: string[];
  readonly logger: CapturingLogger;
}

function harness(extra: Partial<ResourceMonitorOptions> = {}): Harness {
  const api = new FakeApi();
  for (const apiPath of Object.values(PATHS)) api.existing.add(apiPath);
  const reports: [string, readonly string[]][] = [];
  const absent: string[] = [];
  const logger = createCapturingLogger();
  const monitor = new ResourceMonitor({
    api,
    intervalMs: 1000,
    defaultNamespace: 'kaddon',
    logger,
    metrics: {
      absentResource: (module, id) => absent.push(`${module} ${id}`),
      helmReleaseRedeployed: (module) => absent.push(`${module} redeployed`),
    },
    onMissing: (module, ids) => reports.push([module, ids]),
    ...extra,
  });
  monitor.delivered('shop', [CONFIG_MAP, DEPLOYMENT, CLUSTER_ROLE]);
  return { api, monitor, reports, absent, logger };
}

describe('ResourceMonitor', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('reports the deleted objects once, as ns/Kind/name in the namespace helm put them', async () => {
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    h.api.existing.delete(PATHS.deployment);
    h.api.existing.delete(PATHS.clusterRole);
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.clusterRole, IDS.deployment]);
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    assert.deepEqual(h.reports, [['shop', [IDS.clusterRole, IDS.deployment]]]);
    assert.deepEqual(h.absent, [`shop ${IDS.clusterRole}`, `shop ${IDS.deployment}`]);
  });

  it('reports again after a delivery, or when an object came back and was deleted again', async () => {
    h.api.existing.delete(PATHS.configMap);
    await h.monitor.checkNow('shop');
    h.monitor.delivered('shop', [CONFIG_MAP, DEPLOYMENT, CLUSTER_ROLE]);
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.configMap]);
    h.api.existing.add(PATHS.configMap);
    await h.monitor.checkNow('shop');
    h.api.existing.delete(PATHS.configMap);
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.configMap]);
    assert.equal(h.reports.length, 3);
  });

  it("does not report what the module's own hook deleted, until helm delivers the release again", async () => {
    h.api.existing.delete(PATHS.configMap);
    await h.monitor.afterModuleHook('shop');
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    h.monitor.delivered('shop', [CONFIG_MAP, DEPLOYMENT, CLUSTER_ROLE], { unchanged: true });
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    h.api.existing.delete(PATHS.deployment);
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.deployment]);
    h.monitor.delivered('shop', [CONFIG_MAP, DEPLOYMENT, CLUSTER_ROLE]);
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.deployment, IDS.configMap]);
  });

  it('checks a paused module only once every pause is resumed', async () => {
    h.api.existing.delete(PATHS.configMap);
    h.monitor.pause('shop');
    h.monitor.pause('shop');
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    h.monitor.resume('shop');
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    h.monitor.resume('shop');
    assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.configMap]);
  });

  it('drops a check that a pause or a delivery overtook', async () => {
    const overtakes: ((monitor: ResourceMonitor) => void)[] = [
      (monitor) => {
        monitor.pause('shop');
        monitor.resume('shop');
      },
      (monitor) => {
        monitor.delivered('shop', [CONFIG_MAP]);
      },
    ];
    for (const overtake of overtakes) {
      h = harness();
      h.api.existing.delete(PATHS.configMap);
      let open = (): void => undefined;
      h.api.gate = new Promise((resolve) => (open = resolve));
      const check = h.monitor.checkNow('shop');
      overtake(h.monitor);
      open();
      h.api.gate = undefined;
      assert.deepEqual(await check, []);
      assert.deepEqual(await h.monitor.checkNow('shop'), [IDS.configMap]);
    }
  });

  it('a module paused before its first delivery stays paused through it', async () => {
    h.monitor.pause('new');
    h.monitor.delivered('new', [CONFIG_MAP]);
    h.api.existing.delete(PATHS.configMap);
    assert.deepEqual(await h.monitor.checkNow('new'), []);
    h.monitor.resume('new');
    assert.deepEqual(await h.monitor.checkNow('new'), [IDS.configMap]);
  });

  it('logs objects it cannot check and does not count them missing', async () => {
    h.api.failing.add(PATHS.deployment);
    const unknownKind: ResId = {
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      name: 'w',
      namespace: 'shop',
    };
    h.monitor.delivered('shop', [CONFIG_MAP, DEPLOYMENT, unknownKind]);
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
    const errors = h.logger.entries.filter((entry) => entry.level === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.fields.count, 2);
  });

  it('forgets a deleted module', async () => {
    h.api.existing.delete(PATHS.configMap);
    h.monitor.forget('shop');
    assert.deepEqual(await h.monitor.checkNow('shop'), []);
  });

  it('ticks every interval plus a random share, until stopped', async () => {
    const timers: { fire: () => void; delayMs: number; cancelled: boolean }[] = [];
    const clock = {
      setTimer: (fire: () => void, delayMs: number) => {
        const timer = { fire, delayMs, cancelled: false };
        timers.push(timer);
        return () => {
          timer.cancelled = true;
        };
      },
    };
    h = harness({ clock, random: () => 0.5 });
    h.api.existing.delete(PATHS.configMap);
    h.monitor.start();
    h.monitor.start();
    assert.deepEqual(
      timers.map((timer) => timer.delayMs),
      [1000 + Math.floor(500 * JITTER_SHARE)],
    );
    timers[0]?.fire();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(h.reports, [['shop', [IDS.configMap]]]);
    assert.equal(timers.length, 2);
    await h.monitor.stop();
    assert.equal(timers[1]?.cancelled, true);
  });

  it('reports a release that is not deployed once, as addon-operator does', async () => {
    const statuses = new Map<string, string | undefined>([['shop', 'deployed']]);
    const unexpected: [string, string | undefined][] = [];
    h = harness({
      release: {
        status: (module) => {
          const status = statuses.get(module);
          return Promise.resolve(status === undefined ? undefined : { status, revision: 1 });
        },
        onUnexpectedStatus: (module, status) => unexpected.push([module, status]),
      },
    });
    await h.monitor.checkNow('shop');
    statuses.set('shop', 'failed');
    await h.monitor.checkNow('shop');
    await h.monitor.checkNow('shop');
    h.monitor.delivered('shop', [CONFIG_MAP]);
    statuses.delete('shop');
    await h.monitor.checkNow('shop');
    assert.deepEqual(unexpected, [
      ['shop', 'failed'],
      ['shop', undefined],
    ]);
    assert.deepEqual(h.absent, ['shop redeployed', 'shop redeployed']);
  });
});
