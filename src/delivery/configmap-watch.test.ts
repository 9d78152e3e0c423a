import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from '../core/json.ts';
import { createCapturingLogger } from '../observability/logger.ts';
import type { Clock } from '../core/clock.ts';
import { ConfigMapConfigStore, type ConfigMapApi } from './configmap-config-store.ts';
import { KubeApiError, type WatchEvent } from './kube-client.ts';

/** One list answer: the ConfigMap's data (undefined: absent) or an error status. */
type ListStep =
  { readonly data?: Record<string, string>; readonly version: string } | { readonly status: number };
/** One watch: events to deliver, then a clean end or an error status. */
interface WatchStep {
  readonly events?: readonly WatchEvent[];
  readonly status?: number;
}

const configMap = (version: string, data: Record<string, string>): JsonObject => ({
  metadata: { name: 'addon-operator', resourceVersion: version },
  data,
});

/**
 * An API that answers from scripts; when a script runs out, the watch waits until stopped.
 * `finished` resolves once both scripts are used up.
 */
function scriptedApi(lists: ListStep[], watches: WatchStep[]) {
  const calls: string[] = [];
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const api: ConfigMapApi = {
    request: (method, _path, options) => {
      if (method === 'POST') {
        calls.push(`create ${JSON.stringify(options?.body)}`);
        return Promise.resolve({});
      }
      // The object itself (a save reads it first): deleted in these scripts.
      if (options?.query === undefined)
        return Promise.reject(new KubeApiError(method, '/cm/addon-operator', 404, 'NotFound', 'scripted'));
      const step = lists.shift();
      calls.push(`list ${String(options.query.fieldSelector)}`);
      if (!step) throw new Error('unexpected list');
      if ('status' in step)
        return Promise.reject(new KubeApiError('GET', '/cm', step.status, 'Error', 'scripted'));
      const items = step.data ? [configMap(step.version, step.data)] : [];
      return Promise.resolve({ metadata: { resourceVersion: step.version }, items });
    },
    watch: async (_path, query, onEvent, { signal }) => {
      calls.push(`watch ${String(query.resourceVersion)}`);
      const step = watches.shift();
      if (!step) {
        finish();
        return new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            resolve();
          });
        });
      }
      for (const event of step.events ?? []) onEvent(event);
      if (step.status !== undefined) throw new KubeApiError('WATCH', '/cm', step.status, 'Error', 'scripted');
    },
  };
  return { api, calls, finished };
}

/** Time that moves only when the watch sleeps; every sleep is recorded. */
function fakeClock(): Clock & { readonly sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    random: () => 0.5,
    setTimer: (fire, ms) => {
      sleeps.push(ms);
      now += ms;
      const timer = setImmediate(fire);
      return () => {
        clearImmediate(timer);
      };
    },
  };
}

function storeOver(api: ConfigMapApi, clock: Clock) {
  const logger = createCapturingLogger();
  const store = new ConfigMapConfigStore(api, 'd8-system', 'addon-operator', {
    logger,
    clock,
    backoff: { initialMs: 100, maxMs: 800, jitter: true },
  });
  return { store, logger };
}

describe('ConfigMapWatch supervision', () => {
  it('lists again after 410 Gone and keeps reporting changes', async () => {
    const { api, calls, finished } = scriptedApi(
      [
        { version: '10', data: { global: 'a: 1' } },
        { version: '20', data: { global: 'a: 2' } },
      ],
      [{ status: 410 }, { events: [{ type: 'MODIFIED', object: configMap('21', { global: 'a: 3' }) }] }],
    );
    const { store, logger } = storeOver(api, fakeClock());
    const seen: unknown[] = [];
    const watch = store.watch((config) => void seen.push(config.global));
    await finished;
    await watch.stop();
    assert.deepEqual(calls, [
      'list metadata.name=addon-operator',
      'watch 10',
      'list metadata.name=addon-operator',
      'watch 20',
      'watch 21',
    ]);
    assert.deepEqual(seen, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    assert.deepEqual(
      logger.entries.map((entry) => entry.level),
      ['info'],
    );
  });

  it('backs off exponentially up to the bound on repeated failures, and resets after a healthy watch', async () => {
    const { api, finished } = scriptedApi(
      [
        { status: 503 },
        { status: 403 },
        { status: 500 },
        { status: 500 },
        { status: 500 },
        { version: '5' },
        { version: '6' },
      ],
      [{ events: [{ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } }], status: 500 }],
    );
    const clock = fakeClock();
    const { store, logger } = storeOver(api, clock);
    const watch = store.watch(() => undefined);
    await finished;
    await watch.stop();
    // jitter at random() = 0.5 takes 75 % of the base delay
    assert.deepEqual(clock.sleeps, [75, 150, 300, 600, 600, 75]);
    assert.equal(logger.entries.filter((entry) => entry.level === 'error').length, 6);
  });

  it('pauses when the server ends watches at once, instead of looping', async () => {
    const { api, calls, finished } = scriptedApi([{ version: '7' }], [{}, {}, {}]);
    const clock = fakeClock();
    const watch = storeOver(api, clock).store.watch(() => undefined);
    await finished;
    await watch.stop();
    assert.deepEqual(calls.slice(1), ['watch 7', 'watch 7', 'watch 7', 'watch 7']);
    assert.deepEqual(clock.sleeps, [75, 150, 300]);
  });

  it('counts an invalid ConfigMap once however often a relist shows it; its deletion changes nothing', async () => {
    const bad = { global: 'a: 1', Bad_Key: 'x: 1' };
    const { api, finished } = scriptedApi(
      [
        { version: '3', data: bad },
        { version: '3', data: bad },
      ],
      [{ status: 410 }, { events: [{ type: 'DELETED', object: configMap('4', bad) }] }],
    );
    const { store, logger } = storeOver(api, fakeClock());
    const seen: unknown[] = [];
    const watch = store.watch((config, change) => void seen.push([config.global, change.globalChanged]), {
      known: { global: { a: 0 }, modules: new Map(), enabled: new Map() },
    });
    await finished;
    await watch.stop();
    assert.equal(store.invalidConfigCount, 1);
    assert.match(String(logger.entries.find((entry) => entry.level === 'error')?.fields.reason), /Bad_Key/);
    assert.deepEqual(seen, []);
  });

  it('keeps the last config in force when the ConfigMap is deleted, and re-creates it from that config', async () => {
    const { api, calls, finished } = scriptedApi(
      [{ version: '3', data: { global: 'a: 1' } }, { version: '9' }],
      [{ events: [{ type: 'DELETED', object: configMap('4', { global: 'a: 1' }) }] }, { status: 410 }],
    );
    const { store, logger } = storeOver(api, fakeClock());
    const seen: unknown[] = [];
    const watch = store.watch((config) => void seen.push(config.global));
    await finished;
    await watch.stop();
    assert.deepEqual(seen, [{ a: 1 }], 'neither the delete nor the relist without it is empty config');
    assert.deepEqual(watch.config.global, { a: 1 });
    const creates = calls.filter((call) => call.startsWith('create'));
    assert.equal(creates.length, 1, calls.join('\n'));
    assert.deepEqual(JSON.parse(creates[0]?.slice('create '.length) ?? ''), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'addon-operator', namespace: 'd8-system' },
      data: { global: 'a: 1' },
    });
    const warnings = logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.msg);
    assert.equal(
      warnings.filter((msg) => msg.startsWith('ConfigMap deleted')).length,
      1,
      warnings.join('\n'),
    );
    assert.ok(warnings.includes('ConfigMap re-created from its last config'));
  });

  it('a section saved while the ConfigMap is deleted keeps the other keys of its last config', async () => {
    const { api, calls, finished } = scriptedApi(
      [{ version: '3', data: { global: 'a: 1', echoServer: 'replicas: 1\n' } }],
      [{ events: [{ type: 'DELETED', object: configMap('4', {}) }] }],
    );
    const { store } = storeOver(api, fakeClock());
    const watch = store.watch(() => undefined);
    await finished;
    await store.saveSection('echoServer', { replicas: 5 });
    await watch.stop();
    const created = calls
      .filter((call) => call.startsWith('create'))
      .map((call) => (JSON.parse(call.slice('create '.length)) as { data: unknown }).data);
    assert.ok(
      created.some((data) => isDeepStrictEqual(data, { global: 'a: 1', echoServer: 'replicas: 5\n' })),
      JSON.stringify(created),
    );
  });
});
