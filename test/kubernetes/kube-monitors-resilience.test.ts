import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/json.ts';
import { KubeApiError, KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import type { BindingContext, ObjectAndFilterResult } from '../../src/hooks/binding-context.ts';
import type { HookConfig } from '../../src/hooks/hook-config.ts';
import { parseHookConfig } from '../../src/hooks/config/parse-hook-config.ts';
import { loadJqEngine, type JqEngine } from '../../src/jq/jq-engine.ts';
import { createCapturingLogger, type CapturingLogger } from '../../src/observability/logger.ts';
import { systemClock, type Clock } from '../../src/core/clock.ts';
import type { HookMonitor } from '../../src/runtime/kube-monitors/hook-monitor.ts';
import type { KubeBindingTask } from '../../src/runtime/kube-monitors/kube-binding-task.ts';
import { KubeMonitors } from '../../src/runtime/kube-monitors/kube-monitors.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

/** Holds every backoff or pause of the watches while closed, so changes pile up unseen. */
class GateClock implements Clock {
  waiting = 0;
  #closed = false;
  #open = new Set<() => void>();

  now(): number {
    return systemClock.now();
  }

  random(): number {
    return systemClock.random();
  }

  setTimer(fire: () => void, delayMs: number): () => void {
    if (!this.#closed) return systemClock.setTimer(fire, delayMs);
    this.waiting += 1;
    const release = (): void => {
      this.#open.delete(release);
      this.waiting -= 1;
      fire();
    };
    this.#open.add(release);
    return () => {
      if (this.#open.delete(release)) this.waiting -= 1;
    };
  }

  close(): void {
    this.#closed = true;
  }

  open(): void {
    this.#closed = false;
    for (const release of [...this.#open]) release();
  }
}

const NAMESPACE = 'km-resilience';
const CONFIG_MAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
let cluster: TestCluster;
let client: KubeClient;
let jq: JqEngine;
let logger: CapturingLogger;
let monitors: KubeMonitors;
let hook: HookMonitor;
const gate = new GateClock();
const tasks: KubeBindingTask[] = [];

before(async () => {
  cluster = await startTestCluster({ watchCache: false, etcdCompactionInterval: '1s' });
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  jq = await loadJqEngine();
  logger = createCapturingLogger('info');
  monitors = new KubeMonitors({
    api: client,
    jq,
    logger,
    onTask: (task) => tasks.push(task),
    // Watches end every second, as a server with a short request timeout ends them.
    timing: { clock: gate, watchTimeoutSeconds: () => 1 },
  });
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
  for (const [name, k] of [
    ['a', '1'],
    ['b', '1'],
    ['c', '1'],
    ['d', '1'],
  ] as const)
    await create(name, k);
  hook = await monitors.startHook({ id: 'resilient', config: hookConfig() });
});
after(async () => {
  gate.open();
  await monitors.stop();
  await cluster.stop();
});

function hookConfig(): HookConfig {
  const binding = {
    name: 'cms',
    kind: 'ConfigMap',
    namespace: { nameSelector: { matchNames: [NAMESPACE] } },
    jqFilter: '.data.k',
  };
  const text = JSON.stringify({ configVersion: 'v1', kubernetes: [binding] });
  return parseHookConfig(text, { name: 'hook.sh', owner: { kind: 'global' } }, { jq }).config;
}

async function create(name: string, k: string): Promise<void> {
  await client.request('POST', CONFIG_MAPS, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k } },
  });
}

async function patch(name: string, body: JsonObject): Promise<void> {
  await client.request('PATCH', `${CONFIG_MAPS}/${name}`, {
    body,
    contentType: 'application/merge-patch+json',
  });
}

async function remove(name: string): Promise<void> {
  await client.request('DELETE', `${CONFIG_MAPS}/${name}`);
}

async function waitFor(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a fresh list says the snapshot must be: `name=filterResult`, sorted by name. */
async function freshSnapshot(): Promise<string[]> {
  const list = await client.request('GET', CONFIG_MAPS);
  return (list.items as { metadata: { name: string }; data?: { k?: string } }[])
    .map((item) => `${item.metadata.name}=${item.data?.k ?? 'null'}`)
    .sort();
}

function currentSnapshot(): string[] {
  return (hook.snapshots().cms ?? []).map((item: ObjectAndFilterResult) => {
    const name = (item.object?.metadata as { name: string }).name;
    return `${name}=${typeof item.filterResult === 'string' ? item.filterResult : 'null'}`;
  });
}

async function isConverged(): Promise<boolean> {
  return JSON.stringify(currentSnapshot()) === JSON.stringify(await freshSnapshot());
}

/** Each Event context as `watchEvent name=filterResult`. */
function describeEvents(list: readonly KubeBindingTask[]): string[] {
  return list
    .flatMap((task) => task.contexts)
    .map((context: BindingContext) => {
      const event = context as unknown as {
        watchEvent: string;
        object: { metadata: { name: string } };
        filterResult: string;
      };
      return `${event.watchEvent} ${event.object.metadata.name}=${event.filterResult}`;
    })
    .sort();
}

/** Resolves once a watch from `resourceVersion` is refused with 410 Gone: etcd compacted past it. */
async function waitUntilCompacted(resourceVersion: string): Promise<void> {
  await waitFor('etcd compaction', async () => {
    const controller = new AbortController();
    try {
      await client.watch(CONFIG_MAPS, { resourceVersion, timeoutSeconds: 1 }, () => undefined, {
        signal: controller.signal,
        idleMs: 5_000,
      });
      return false;
    } catch (error: unknown) {
      return error instanceof KubeApiError && error.status === 410;
    } finally {
      controller.abort();
    }
  });
}

describe('KubeMonitors when watches break', () => {
  it('relists after 410 Gone and emits exactly the changes made while the watch was down', async () => {
    gate.close();
    await waitFor('the watch to pause', () => gate.waiting > 0);
    const start = tasks.length;
    const { relists } = monitors.stats;
    const listed = await client.request('GET', CONFIG_MAPS);
    await create('e', '1');
    await patch('a', { data: { k: '4' } });
    await patch('b', { metadata: { labels: { filter: 'unchanged' } } });
    await remove('d');
    await waitUntilCompacted((listed.metadata as { resourceVersion: string }).resourceVersion);
    assert.equal(tasks.length, start);
    gate.open();
    await waitFor('the snapshot to equal a fresh list', isConverged);
    assert.ok(monitors.stats.relists > relists, 'the watch relisted');
    assert.deepEqual(describeEvents(tasks.slice(start)), ['Added e=1', 'Deleted d=1', 'Modified a=4']);
    assert.ok(logger.entries.some((entry) => entry.msg.includes('410') && entry.fields.status === 410));
  });

  it('survives an apiserver restart while objects change, with backoff and a log line per failure', async () => {
    const start = tasks.length;
    const errorsBefore = logger.entries.filter((entry) => entry.level === 'error').length;
    await create('f', '1');
    await cluster.restartApiServer();
    await patch('a', { data: { k: '5' } });
    await remove('c');
    await waitFor(
      'the snapshot to equal a fresh list',
      async () => tasks.length >= start + 3 && (await isConverged()),
    );
    assert.deepEqual(describeEvents(tasks.slice(start)), ['Added f=1', 'Deleted c=1', 'Modified a=5']);
    const failures = logger.entries.filter((entry) => entry.level === 'error').slice(errorsBefore);
    assert.ok(failures.length > 0, 'each failure is logged');
    for (const failure of failures) {
      assert.equal(failure.fields.bindings, 'resilient/cms');
      assert.equal(typeof failure.fields.status, 'number');
    }
  });
});
