import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHookMetrics } from '../hooks/hook-metrics.ts';
import { familiesClash } from './metric-family-clash.ts';
import { createHookMetricsStore, type HookMetricsStore, type MetricsSource } from './hook-metrics-store.ts';

function run(
  store: HookMetricsStore,
  source: MetricsSource,
  lines: string[],
): ReturnType<HookMetricsStore['apply']> {
  const parsed = parseHookMetrics(lines.join('\n'));
  assert.deepEqual(parsed.invalid, []);
  return store.apply(source, parsed.operations);
}

/** Metric families of an exposition, keyed by name, each its lines in order. */
function families(text: string): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const name = /^# (?:HELP|TYPE) (\S+)/u.exec(line)?.[1] ?? /^([a-zA-Z_:][\w:]*)/u.exec(line)?.[1] ?? line;
    const family = name.replace(/_(bucket|sum|count)$/u, '');
    byName.set(family, [...(byName.get(family) ?? []), line]);
  }
  return byName;
}

/**
 * addon-operator's documentation prints `{a="1", b="2"}`; the exposition format writes no space after the
 * comma.
 */
function seedText(text: string): Map<string, string[]> {
  return families(text.replace(/", /gu, '",'));
}

const hook1 = { hook: 'hook1.sh' };
const hook2 = { hook: 'hook2.sh' };

const HOOK1_FIRST = [
  '{"group":"hook1", "name":"hook_metric", "action":"add", "value":1, "labels":{"kind":"pod"}}',
  '{"group":"hook1", "name":"hook_metric", "action":"add", "value":1, "labels":{"kind":"replicaset"}}',
  '{"group":"hook1", "name":"hook_metric", "action":"add", "value":1, "labels":{"kind":"deployment"}}',
  '{"group":"hook1", "name":"hook1_special_metric", "action":"set", "value":12, "labels":{"label1":"value1"}}',
  '{"group":"hook1", "name":"common_metric", "action":"set", "value":300, "labels":{"source":"source3"}}',
  '{"name":"common_metric", "action":"set", "value":100, "labels":{"source":"source1"}}',
];
const HOOK2_FIRST = [
  '{"group":"hook2", "name":"hook_metric","action":"add", "value":1, "labels":{"kind":"configmap"}}',
  '{"group":"hook2", "name":"hook_metric","action":"add", "value":1, "labels":{"kind":"secret"}}',
  '{"group":"hook2", "name":"hook2_special_metric", "action":"set", "value":42}',
  '{"name":"common_metric", "action":"set", "value":200, "labels":{"source":"source2"}}',
];

describe('hook metrics store: docs/hooks.md "Metrics from hooks" example', () => {
  const store = createHookMetricsStore();

  it('first runs of hook1.sh and hook2.sh', async () => {
    assert.deepEqual(run(store, hook1, HOOK1_FIRST), []);
    assert.deepEqual(run(store, hook2, HOOK2_FIRST), []);
    const expected = seedText(`
# HELP hook_metric hook_metric
# TYPE hook_metric counter
hook_metric{hook="hook1.sh", kind="pod"} 1
hook_metric{hook="hook1.sh", kind="replicaset"} 1
hook_metric{hook="hook1.sh", kind="deployment"} 1
hook_metric{hook="hook2.sh", kind="configmap"} 1
hook_metric{hook="hook2.sh", kind="secret"} 1
# HELP hook1_special_metric hook1_special_metric
# TYPE hook1_special_metric gauge
hook1_special_metric{hook="hook1.sh", label1="value1"} 12
# HELP hook2_special_metric hook2_special_metric
# TYPE hook2_special_metric gauge
hook2_special_metric{hook="hook2.sh"} 42
# HELP common_metric common_metric
# TYPE common_metric gauge
common_metric{hook="hook1.sh", source="source3"} 300
common_metric{hook="hook1.sh", source="source1"} 100
common_metric{hook="hook2.sh", source="source2"} 200
`);
    assert.deepEqual(families(await store.registry.metrics()), expected);
  });

  it('next run of hook1.sh expires what group hook1 did not write again; the counter keeps counting', async () => {
    run(store, hook1, [
      '{"group":"hook1", "name":"hook_metric", "action":"add", "value":1, "labels":{"kind":"pod"}}',
    ]);
    const expected = seedText(`
# HELP hook_metric hook_metric
# TYPE hook_metric counter
hook_metric{hook="hook1.sh", kind="pod"} 2
hook_metric{hook="hook2.sh", kind="configmap"} 1
hook_metric{hook="hook2.sh", kind="secret"} 1
# HELP hook2_special_metric hook2_special_metric
# TYPE hook2_special_metric gauge
hook2_special_metric{hook="hook2.sh"} 42
# HELP common_metric common_metric
# TYPE common_metric gauge
common_metric{hook="hook1.sh", source="source1"} 100
common_metric{hook="hook2.sh", source="source2"} 200
`);
    assert.deepEqual(families(await store.registry.metrics()), expected);
  });

  it('expire removes group hook2 and leaves metrics without a group', async () => {
    run(store, hook2, ['{"group":"hook2", "action":"expire"}']);
    const expected = seedText(`
# HELP hook_metric hook_metric
# TYPE hook_metric counter
hook_metric{hook="hook1.sh", kind="pod"} 2
# HELP common_metric common_metric
# TYPE common_metric gauge
common_metric{hook="hook1.sh", source="source1"} 100
common_metric{hook="hook2.sh", source="source2"} 200
`);
    assert.deepEqual(families(await store.registry.metrics()), expected);
  });
});

describe('hook metrics store', () => {
  it('observes a histogram with the hook buckets and adds the module label of a module hook', async () => {
    const store = createHookMetricsStore();
    run(store, { hook: 'hooks/a.sh', module: 'echo' }, [
      '{"name":"hook_duration","action":"observe","value":3,"buckets":[1,5],"labels":{"step":"x"}}',
    ]);
    assert.equal(
      await store.registry.metrics(),
      [
        '# HELP hook_duration hook_duration',
        '# TYPE hook_duration histogram',
        'hook_duration_bucket{le="1",hook="hooks/a.sh",module="echo",step="x"} 0',
        'hook_duration_bucket{le="5",hook="hooks/a.sh",module="echo",step="x"} 1',
        'hook_duration_bucket{le="+Inf",hook="hooks/a.sh",module="echo",step="x"} 1',
        'hook_duration_sum{hook="hooks/a.sh",module="echo",step="x"} 3',
        'hook_duration_count{hook="hooks/a.sh",module="echo",step="x"} 1',
        '',
      ].join('\n'),
    );
  });

  it('shortcut fields and metrics without a group accumulate across runs and are never expired', async () => {
    const store = createHookMetricsStore();
    run(store, hook1, ['{"name":"runs","add":1}', '{"name":"level","set":5}']);
    run(store, hook1, ['{"group":"g","name":"other","set":1}']);
    run(store, hook1, ['{"name":"runs","add":2}']);
    const text = await store.registry.metrics();
    assert.match(text, /^runs\{hook="hook1.sh"\} 3$/mu);
    assert.match(text, /^level\{hook="hook1.sh"\} 5$/mu);
  });

  it('a hook cannot overwrite the hook label', async () => {
    const store = createHookMetricsStore();
    run(store, hook1, ['{"name":"m","set":1,"labels":{"hook":"other.sh"}}']);
    assert.match(await store.registry.metrics(), /^m\{hook="hook1.sh"\} 1$/mu);
  });

  it('reports a conflicting type, label set or built-in name and applies the rest', async () => {
    const store = createHookMetricsStore({ isReserved: ({ name }) => name === 'addon_operator_live_ticks' });
    const conflicts = run(store, hook1, [
      '{"name":"m","add":1}',
      '{"name":"m","set":7}',
      '{"name":"m","add":1,"labels":{"extra":"x"}}',
      '{"name":"addon_operator_live_ticks","add":1}',
      '{"name":"n","set":2}',
    ]);
    assert.deepEqual(
      conflicts.map((c) => c.name),
      ['m', 'm', 'addon_operator_live_ticks'],
    );
    assert.match(conflicts[0]?.reason ?? '', /needs a gauge but the metric is a counter/u);
    assert.match(conflicts[1]?.reason ?? '', /label 'extra'/u);
    const text = await store.registry.metrics();
    assert.match(text, /^m\{hook="hook1.sh"\} 1$/mu);
    assert.match(text, /^n\{hook="hook1.sh"\} 2$/mu);
    assert.doesNotMatch(text, /live_ticks/u);
  });

  it('a name whose series all expired can come back with another type', async () => {
    const store = createHookMetricsStore();
    run(store, hook1, ['{"group":"g","name":"m","add":1}']);
    run(store, hook1, ['{"group":"g","action":"expire"}']);
    assert.deepEqual(run(store, hook1, ['{"name":"m","set":4}']), []);
    assert.match(await store.registry.metrics(), /# TYPE m gauge\nm\{hook="hook1.sh"\} 4/u);
  });
});

describe('hook metrics that would break /metrics are refused, never thrown', () => {
  it('refuses a family read as part of a built-in or another hook histogram, and labels the exposition cannot hold', async () => {
    const builtIn = { name: 'addon_operator_module_run_seconds', type: 'histogram' } as const;
    const store = createHookMetricsStore({
      isReserved: (family) => familiesClash(family, builtIn),
    });
    const parsed = parseHookMetrics(
      [
        '{"name":"addon_operator_module_run_seconds_count","set":1}',
        '{"name":"h","action":"observe","value":1,"buckets":[1]}',
        '{"name":"h_bucket","add":1}',
        '{"name":"g","set":1,"labels":{"v":"a\\rb"}}',
        `{"name":"g","set":1,"labels":{"v":"${'x'.repeat(2000)}"}}`,
        '{"name":"g","set":1,"labels":{"v":"a\\ud800"}}',
        '{"name":"h2","action":"observe","value":1,"buckets":[1],"labels":{"le":"1"}}',
        '{"name":"ok","set":2,"labels":{"v":"\\"q\\" \\\\ é"}}',
      ].join('\n'),
    );
    assert.equal(parsed.invalid.length, 4);
    const conflicts = store.apply({ hook: 'a"b\\c\u202e.sh' }, parsed.operations);
    assert.deepEqual(
      conflicts.map((conflict) => conflict.name),
      ['addon_operator_module_run_seconds_count', 'h_bucket'],
    );
    const text = await store.registry.metrics();
    assert.match(text, /^ok\{hook="a\\"b\\\\c\uFFFD\.sh",v="\\"q\\" \\\\ é"\} 2$/mu);
    assert.doesNotMatch(text, /h_bucket 1|^g\{/mu);
  });
});
