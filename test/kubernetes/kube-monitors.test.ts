import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/json.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import type { BindingContext, ObjectAndFilterResult } from '../../src/hooks/binding-context.ts';
import type { HookConfig } from '../../src/hooks/hook-config.ts';
import { parseHookConfig } from '../../src/hooks/config/parse-hook-config.ts';
import { loadJqEngine, type JqEngine } from '../../src/jq/jq-engine.ts';
import { createCapturingLogger } from '../../src/observability/logger.ts';
import type { KubeBindingTask } from '../../src/runtime/kube-monitors/kube-binding-task.ts';
import { KubeMonitorError } from '../../src/runtime/kube-monitors/kube-monitor-error.ts';
import { KubeMonitors } from '../../src/runtime/kube-monitors/kube-monitors.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

let cluster: TestCluster;
let client: KubeClient;
let jq: JqEngine;
let monitors: KubeMonitors;
const tasks: KubeBindingTask[] = [];

before(async () => {
  cluster = await startTestCluster();
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  jq = await loadJqEngine();
  monitors = new KubeMonitors({
    api: client,
    jq,
    logger: createCapturingLogger('error'),
    onTask: (task) => tasks.push(task),
  });
});
after(async () => {
  await monitors.stop();
  await cluster.stop();
});

function hookConfig(kubernetes: readonly JsonObject[]): HookConfig {
  const text = JSON.stringify({ configVersion: 'v1', kubernetes });
  return parseHookConfig(text, { name: 'hook.sh', owner: { kind: 'global' } }, { jq }).config;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tasks of one hook from index `from` on, once there are `count` of them. */
async function tasksOf(hookId: string, from: number, count: number): Promise<KubeBindingTask[]> {
  return waitFor(`${count} tasks of ${hookId}`, () => {
    const found = tasks.slice(from).filter((task) => task.hookId === hookId);
    return found.length >= count ? found : undefined;
  });
}

const contextsOf = (list: readonly KubeBindingTask[]): BindingContext[] =>
  list.flatMap((task) => task.contexts);

async function createNamespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
  });
}

async function labelNamespace(name: string, labels: Record<string, string | null>): Promise<void> {
  await client.request('PATCH', `/api/v1/namespaces/${name}`, {
    body: { metadata: { labels } },
    contentType: 'application/merge-patch+json',
  });
}

const cmPath = (namespace: string, name = ''): string =>
  `/api/v1/namespaces/${namespace}/configmaps${name ? `/${name}` : ''}`;

async function createConfigMap(
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = {},
): Promise<JsonObject> {
  return client.request('POST', cmPath(namespace), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data },
  });
}

async function patchConfigMap(namespace: string, name: string, patch: JsonObject): Promise<JsonObject> {
  return client.request('PATCH', cmPath(namespace, name), {
    body: patch,
    contentType: 'application/merge-patch+json',
  });
}

function deletedVersion(context: BindingContext | undefined): string {
  const object = (context as { object?: { metadata?: { resourceVersion?: string } } } | undefined)?.object;
  return object?.metadata?.resourceVersion ?? '';
}

type SyncLike = Extract<BindingContext, { objects: unknown }>;

const names = (items: readonly ObjectAndFilterResult[] | undefined): unknown[] =>
  (items ?? []).map((item) => item.filterResult);

describe('KubeMonitors against a real kube-apiserver', () => {
  it('emits the exact Synchronization, then Added, Modified and Deleted only when the jqFilter result changes', async () => {
    await createNamespace('km-one');
    const b = await createConfigMap('km-one', 'b', { k: '1' });
    const a = await createConfigMap('km-one', 'a', { k: '2' });
    const config = hookConfig([
      {
        name: 'cms',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: { nameSelector: { matchNames: ['km-one'] } },
        jqFilter: '.data',
      },
    ]);
    const start = tasks.length;
    const hook = await monitors.startHook({ id: 'exact', config });
    assert.equal(hook.isSynchronized, true);
    assert.deepEqual(tasks.slice(start), [
      {
        hookId: 'exact',
        binding: 'cms',
        type: 'Synchronization',
        queue: 'main',
        allowFailure: false,
        waitForSynchronization: true,
        contexts: [
          {
            binding: 'cms',
            type: 'Synchronization',
            objects: [
              { object: a, filterResult: { k: '2' } },
              { object: b, filterResult: { k: '1' } },
            ],
          },
        ],
      },
    ]);

    const c = await createConfigMap('km-one', 'c', { k: '3' });
    const modified = await patchConfigMap('km-one', 'a', { data: { k: '4' } });
    await patchConfigMap('km-one', 'a', { metadata: { labels: { unrelated: 'change' } } });
    const marker = await createConfigMap('km-one', 'marker', {});
    await client.request('DELETE', cmPath('km-one', 'b'));
    const events = contextsOf(await tasksOf('exact', start + 1, 4));
    assert.deepEqual(events, [
      { binding: 'cms', type: 'Event', watchEvent: 'Added', object: c, filterResult: { k: '3' } },
      { binding: 'cms', type: 'Event', watchEvent: 'Modified', object: modified, filterResult: { k: '4' } },
      { binding: 'cms', type: 'Event', watchEvent: 'Added', object: marker, filterResult: null },
      {
        binding: 'cms',
        type: 'Event',
        watchEvent: 'Deleted',
        // The last state of b; only the resourceVersion may be the deletion's.
        object: {
          ...b,
          metadata: { ...(b.metadata as JsonObject), resourceVersion: deletedVersion(events[3]) },
        },
        filterResult: { k: '1' },
      },
    ]);
    const snapshot = hook.snapshots().cms;
    assert.deepEqual(names(snapshot), [{ k: '4' }, { k: '3' }, null]);
    assert.equal((snapshot?.[0]?.object?.metadata as { labels: JsonObject }).labels.unrelated, 'change');
  });

  it('honours executeHookOnEvent, executeHookOnSynchronization, keepFullObjectsInMemory, group and includeSnapshotsFrom', async () => {
    await createNamespace('km-two');
    await createConfigMap('km-two', 'x', {});
    await client.request('POST', '/api/v1/namespaces/km-two/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } },
    });
    const inNamespace = { nameSelector: { matchNames: ['km-two'] } };
    const config = hookConfig([
      {
        name: 'cms',
        kind: 'ConfigMap',
        namespace: inNamespace,
        jqFilter: '.metadata.name',
        executeHookOnEvent: ['Deleted'],
        keepFullObjectsInMemory: false,
        includeSnapshotsFrom: ['cms', 'secrets'],
      },
      {
        name: 'secrets',
        kind: 'Secret',
        namespace: inNamespace,
        jqFilter: '.metadata.name',
        keepFullObjectsInMemory: false,
        executeHookOnSynchronization: false,
        group: 'pair',
      },
      {
        name: 'grouped',
        kind: 'ConfigMap',
        namespace: inNamespace,
        jqFilter: '.data',
        group: 'pair',
        queue: 'q',
      },
    ]);
    const start = tasks.length;
    const watchesBefore = monitors.stats.activeWatches;
    const hook = await monitors.startHook({ id: 'options', config });
    assert.equal(monitors.stats.activeWatches, watchesBefore + 2, 'the two ConfigMap bindings share a watch');
    const groupedX = hook.snapshots().grouped?.[0];
    assert.deepEqual(
      tasks.slice(start).map(({ binding, type, queue, contexts }) => ({ binding, type, queue, contexts })),
      [
        {
          binding: 'cms',
          type: 'Synchronization',
          queue: 'main',
          contexts: [
            {
              binding: 'cms',
              type: 'Synchronization',
              objects: [{ filterResult: 'x' }],
              snapshots: { cms: [{ filterResult: 'x' }], secrets: [{ filterResult: 's1' }] },
            },
          ],
        },
        {
          binding: 'grouped',
          type: 'Synchronization',
          queue: 'q',
          contexts: [
            {
              binding: 'grouped',
              type: 'Group',
              groupName: 'pair',
              snapshots: { secrets: [{ filterResult: 's1' }], grouped: [groupedX] },
            },
          ],
        },
      ],
    );
    assert.equal(groupedX?.filterResult, null);

    await createConfigMap('km-two', 'y', { k: 'v' });
    await client.request('DELETE', cmPath('km-two', 'x'));
    const events = await tasksOf('options', start + 2, 3);
    assert.deepEqual(
      events.map((task) => task.binding),
      ['grouped', 'cms', 'grouped'],
    );
    const [addedY, deletedX] = contextsOf(events);
    assert.equal((addedY as { type: string }).type, 'Group');
    assert.deepEqual(deletedX, {
      binding: 'cms',
      type: 'Event',
      watchEvent: 'Deleted',
      filterResult: 'x',
      snapshots: { cms: [{ filterResult: 'y' }], secrets: [{ filterResult: 's1' }] },
    });
  });

  it('follows the namespaces a namespace labelSelector selects as they are labelled and unlabelled', async () => {
    await createNamespace('km-l1', { km: 'watch' });
    await createNamespace('km-l2');
    await createConfigMap('km-l1', 'one', {});
    await createConfigMap('km-l2', 'one', {});
    const config = hookConfig([
      {
        name: 'labelled',
        kind: 'ConfigMap',
        namespace: { labelSelector: { matchLabels: { km: 'watch' } } },
        jqFilter: '.metadata.namespace',
      },
    ]);
    const start = tasks.length;
    const hook = await monitors.startHook({ id: 'ns-labels', config });
    const [sync] = contextsOf(await tasksOf('ns-labels', start, 1));
    assert.deepEqual(names((sync as SyncLike).objects), ['km-l1']);

    await labelNamespace('km-l2', { km: 'watch' });
    await waitFor('km-l2 in the snapshot', () => names(hook.snapshots().labelled).length === 2);
    await createConfigMap('km-l2', 'two', {});
    await labelNamespace('km-l1', { km: null });
    await waitFor('km-l1 out of the snapshot', () =>
      names(hook.snapshots().labelled).every((namespace) => namespace === 'km-l2'),
    );
    const events = await tasksOf('ns-labels', start + 1, 1);
    assert.deepEqual(
      contextsOf(events).map((context) => [
        (context as { watchEvent: string }).watchEvent,
        names([context as ObjectAndFilterResult])[0],
      ]),
      [['Added', 'km-l2']],
    );
    assert.deepEqual(names(hook.snapshots().labelled), ['km-l2', 'km-l2']);
  });

  it('selects by label selector, field selector, one or several names, and resolves short kind names', async () => {
    await createNamespace('km-sel');
    await createConfigMap('km-sel', 'web-1', {}, { app: 'web' });
    await createConfigMap('km-sel', 'web-2', {}, { app: 'web' });
    await createConfigMap('km-sel', 'skip', {}, { app: 'web' });
    await createConfigMap('km-sel', 'db', {}, { app: 'db' });
    const base = { namespace: { nameSelector: { matchNames: ['km-sel'] } }, jqFilter: '.metadata.name' };
    const config = hookConfig([
      {
        ...base,
        name: 'web',
        kind: 'ConfigMap',
        labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
        fieldSelector: { matchExpressions: [{ field: 'metadata.name', operator: '!=', value: 'web-2' }] },
      },
      { ...base, name: 'two-names', kind: 'configmaps', nameSelector: { matchNames: ['db', 'web-2'] } },
      { ...base, name: 'one-name', kind: 'cm', nameSelector: { matchNames: ['db'] } },
    ]);
    const start = tasks.length;
    const hook = await monitors.startHook({ id: 'selectors', config });
    const syncs = contextsOf(await tasksOf('selectors', start, 3));
    assert.deepEqual(
      syncs.map((context) => names((context as SyncLike).objects)),
      [['skip', 'web-1'], ['db', 'web-2'], ['db']],
    );
    await patchConfigMap('km-sel', 'db', { metadata: { labels: { app: 'web' } } });
    await waitFor('db in the web binding', () => names(hook.snapshots().web).includes('db'));
    const events = await tasksOf('selectors', start + 3, 1);
    assert.deepEqual(
      contextsOf(events).map(
        (context) => `${context.binding} ${(context as { watchEvent: string }).watchEvent}`,
      ),
      ['web Added'],
    );
  });

  it('shares one list/watch between bindings of different hooks that select the same objects', async () => {
    await createNamespace('km-share');
    await createConfigMap('km-share', 'one', { k: 'v' }, { app: 'x' });
    const binding = {
      kind: 'ConfigMap',
      namespace: { nameSelector: { matchNames: ['km-share'] } },
      labelSelector: { matchLabels: { app: 'x' } },
    };
    const before = monitors.stats;
    const start = tasks.length;
    await monitors.startHook({
      id: 'share-1',
      config: hookConfig([{ ...binding, name: 'n', jqFilter: '.metadata.name' }]),
    });
    const afterFirst = monitors.stats;
    await monitors.startHook({
      id: 'share-2',
      config: hookConfig([{ ...binding, name: 'd', jqFilter: '.data.k' }]),
    });
    assert.equal(afterFirst.activeWatches, before.activeWatches + 1);
    assert.equal(afterFirst.lists, before.lists + 1);
    assert.equal(monitors.stats.activeWatches, afterFirst.activeWatches);
    assert.equal(monitors.stats.lists, afterFirst.lists);
    await createConfigMap('km-share', 'two', { k: 'w' }, { app: 'x' });
    const [first] = contextsOf(await tasksOf('share-1', start + 2, 1));
    const [second] = contextsOf(await tasksOf('share-2', start + 2, 1));
    assert.equal((first as ObjectAndFilterResult).filterResult, 'two');
    assert.equal((second as ObjectAndFilterResult).filterResult, 'w');
    await monitors.stopHook('share-1');
    assert.equal(monitors.stats.activeWatches, afterFirst.activeWatches);
    await monitors.stopHook('share-2');
    assert.equal(monitors.stats.activeWatches, before.activeWatches);
  });

  it('rewatches from the last resourceVersion when the server ends a watch, without relisting', async () => {
    await createNamespace('km-rewatch');
    const own: KubeBindingTask[] = [];
    const shortWatches = new KubeMonitors({
      api: client,
      jq,
      logger: createCapturingLogger('error'),
      onTask: (task) => own.push(task),
      timing: { watchTimeoutSeconds: () => 1 },
    });
    try {
      const config = hookConfig([
        {
          name: 'cms',
          kind: 'ConfigMap',
          namespace: { nameSelector: { matchNames: ['km-rewatch'] } },
          jqFilter: '.data.k',
          executeHookOnSynchronization: false,
        },
      ]);
      await shortWatches.startHook({ id: 'rewatch', config });
      const { watches } = shortWatches.stats;
      await createConfigMap('km-rewatch', 'a', { k: '1' });
      await waitFor('the Added event', () => own.length === 1);
      await waitFor('two more watches', () => shortWatches.stats.watches >= watches + 2);
      await patchConfigMap('km-rewatch', 'a', { data: { k: '2' } });
      await waitFor('the Modified event', () => own.length === 2);
      await waitFor('two more watches', () => shortWatches.stats.watches >= watches + 4);
      await client.request('DELETE', cmPath('km-rewatch', 'a'));
      await waitFor('the Deleted event', () => own.length === 3);
      assert.deepEqual(
        contextsOf(own).map((context) => {
          const event = context as unknown as { watchEvent: string; filterResult: string };
          return `${event.watchEvent} ${event.filterResult}`;
        }),
        ['Added 1', 'Modified 2', 'Deleted 2'],
      );
      assert.equal(shortWatches.stats.lists, 1);
      assert.equal(shortWatches.stats.failures, 0);
    } finally {
      await shortWatches.stop();
    }
  });

  it('refuses a kind the API server does not serve, leaving nothing running', async () => {
    const before = monitors.stats.activeWatches;
    await assert.rejects(
      monitors.startHook({
        id: 'unknown',
        config: hookConfig([
          { name: 'w', apiVersion: 'example.com/v1', kind: 'Widget' },
          { name: 'c', kind: 'ConfigMap' },
        ]),
      }),
      (error: unknown) => error instanceof KubeMonitorError && error.code === 'kube-monitor-resource-unknown',
    );
    assert.equal(monitors.stats.activeWatches, before);
    assert.equal(monitors.hook('unknown'), undefined);
  });

  it('ends every watch on stop()', async () => {
    await monitors.stop();
    assert.equal(monitors.stats.activeWatches, 0);
  });
});
