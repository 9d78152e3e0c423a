import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JsonObject } from '../core/json.ts';
import {
  compactGroupContexts,
  eventContext,
  filterResultOf,
  lifecycleContext,
  onStartupContext,
  scheduleContext,
  snapshotItem,
  synchronizationContext,
  type BindingContext,
} from './binding-context.ts';
import { formatBindingContexts } from './binding-context-json.ts';
import type { HookConfig, HookIdentity } from './hook-config.ts';
import { parseHookConfig } from './config/parse-hook-config.ts';

const GLOBAL: HookIdentity = { name: 'hook.sh', owner: { kind: 'global' } };
const MODULE: HookIdentity = { name: 'hooks/hook.sh', owner: { kind: 'module', module: 'echo-server' } };

function fixture(name: string): string {
  return readFileSync(path.join(import.meta.dirname, 'hook-config-fixtures', name), 'utf8');
}

function config(text: string, hook: HookIdentity = GLOBAL): HookConfig {
  return parseHookConfig(text, hook).config;
}

function pod(name: string, labels: Record<string, string> = {}): JsonObject {
  return { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', labels } };
}

/** What a hook would read back from $BINDING_CONTEXT_PATH. */
function asRead(contexts: readonly BindingContext[]): unknown {
  return JSON.parse(formatBindingContexts(contexts));
}

describe('binding contexts (docs/hooks.md "Binding contexts", docs/lifecycle.md)', () => {
  it('onStartup carries the binding only (docs/lifecycle.md step 1)', () => {
    assert.deepEqual(asRead([onStartupContext()]), [{ binding: 'onStartup' }]);
  });

  it('beforeAll carries the snapshots of all kubernetes bindings: the example of docs/hooks.md', () => {
    const hook = config(fixture('documented-binding-context.yaml'));
    const [monitorPods] = hook.kubernetes;
    assert.ok(monitorPods);
    const object = pod('pod-1r62e3', { label1: 'label value' });
    const snapshots = { 'monitor-pods': [snapshotItem(monitorPods, object, [{ label1: 'label value' }])] };
    const expected: unknown = JSON.parse(fixture('documented-before-all-context.json'));
    assert.deepEqual(asRead([lifecycleContext(hook, 'beforeAll', snapshots)]), expected);
  });

  it('module lifecycle bindings get snapshots too, {} without kubernetes bindings, [] for empty ones', () => {
    const noKubernetes = config('configVersion: v1\nbeforeHelm: 1', MODULE);
    assert.deepEqual(asRead([lifecycleContext(noKubernetes, 'beforeHelm', {})]), [
      { binding: 'beforeHelm', snapshots: {} },
    ]);
    const twoBindings = config(
      'configVersion: v1\nafterDeleteHelm: 1\nkubernetes: [{name: a, kind: Pod}, {name: b, kind: Node}]',
      MODULE,
    );
    const snapshots = { a: [{ object: pod('x') }] };
    assert.deepEqual(asRead([lifecycleContext(twoBindings, 'afterDeleteHelm', snapshots)]), [
      { binding: 'afterDeleteHelm', snapshots: { a: [{ object: pod('x') }], b: [] } },
    ]);
  });

  it('schedule: type Schedule, snapshots only from includeSnapshotsFrom', () => {
    const hook = config(
      'configVersion: v1\nkubernetes: [{name: pods, kind: Pod}, {name: cms, kind: ConfigMap}]\nschedule:\n- {name: every-5m, crontab: "*/5 * * * *"}\n- {name: checks, crontab: "0 * * * *", includeSnapshotsFrom: [cms]}',
    );
    const snapshots = { pods: [{ object: pod('p') }], cms: [] };
    const [plain, withSnapshots] = hook.schedule;
    assert.ok(plain && withSnapshots);
    assert.deepEqual(
      asRead([scheduleContext(hook, plain, snapshots), scheduleContext(hook, withSnapshots, snapshots)]),
      [
        { binding: 'every-5m', type: 'Schedule' },
        { binding: 'checks', type: 'Schedule', snapshots: { cms: [] } },
      ],
    );
  });

  it('Synchronization: every object, an empty list when there is none (docs/lifecycle.md step 2)', () => {
    const hook = config(
      'configVersion: v1\nkubernetes:\n- {name: pods, kind: Pod, jqFilter: .metadata.name, includeSnapshotsFrom: [cm]}\n- {name: cm, kind: ConfigMap}',
    );
    const [pods] = hook.kubernetes;
    assert.ok(pods);
    const objects = [snapshotItem(pods, pod('a'), ['a'])];
    const snapshots = { cm: [{ object: { kind: 'ConfigMap' } }] };
    assert.deepEqual(
      asRead([
        synchronizationContext(hook, pods, objects, snapshots),
        synchronizationContext(hook, pods, [], {}),
      ]),
      [
        {
          binding: 'pods',
          type: 'Synchronization',
          objects: [{ object: pod('a'), filterResult: 'a' }],
          snapshots,
        },
        { binding: 'pods', type: 'Synchronization', objects: [], snapshots: { cm: [] } },
      ],
    );
  });

  it('Event: watchEvent with the object and filterResult inlined (docs/lifecycle.md step 9)', () => {
    const hook = config(
      'configVersion: v1\nkubernetes:\n- {name: pods, kind: Pod, jqFilter: .metadata.labels}\n- {name: slim, kind: Pod, keepFullObjectsInMemory: false, jqFilter: .metadata.name}\n- {name: plain, kind: Pod}',
    );
    const [pods, slim, plain] = hook.kubernetes;
    assert.ok(pods && slim && plain);
    const object = pod('pod-321d12', { app: 'web' });
    assert.deepEqual(
      asRead([
        eventContext(hook, pods, 'Added', snapshotItem(pods, object, [{ app: 'web' }]), {}),
        eventContext(hook, slim, 'Modified', snapshotItem(slim, object, ['pod-321d12']), {}),
        eventContext(hook, plain, 'Deleted', snapshotItem(plain, object), {}),
        eventContext(hook, pods, 'Deleted', undefined, {}),
      ]),
      [
        { binding: 'pods', type: 'Event', watchEvent: 'Added', object, filterResult: { app: 'web' } },
        { binding: 'slim', type: 'Event', watchEvent: 'Modified', filterResult: 'pod-321d12' },
        { binding: 'plain', type: 'Event', watchEvent: 'Deleted', object },
        { binding: 'pods', type: 'Event', watchEvent: 'Deleted', object: null, filterResult: '' },
      ],
    );
  });

  it("Group: the binding name, type Group, the group name and the group's snapshots", () => {
    const hook = config(
      'configVersion: v1\nschedule: [{name: periodic, crontab: "0 */3 * * *", group: pods}]\nkubernetes:\n- {name: monitor-pods, kind: Pod, group: pods}\n- {name: configmap-content, kind: ConfigMap, group: pods}',
    );
    const snapshots = { 'monitor-pods': [{ object: pod('a') }], 'configmap-content': [] };
    const [periodic] = hook.schedule;
    const [monitorPods] = hook.kubernetes;
    assert.ok(periodic && monitorPods);
    const group = { type: 'Group', groupName: 'pods', snapshots };
    assert.deepEqual(
      asRead([
        scheduleContext(hook, periodic, snapshots),
        synchronizationContext(hook, monitorPods, [{ object: pod('a') }], snapshots),
        eventContext(hook, monitorPods, 'Added', { object: pod('a') }, snapshots),
      ]),
      [
        { binding: 'periodic', ...group },
        { binding: 'monitor-pods', ...group },
        { binding: 'monitor-pods', ...group },
      ],
    );
  });

  it('keeps only the last of consecutive contexts of one group', () => {
    const group = (binding: string, groupName: string): BindingContext => ({
      binding,
      type: 'Group',
      groupName,
    });
    const contexts = [
      group('a', 'g'),
      group('b', 'g'),
      { binding: 's', type: 'Schedule' } as const,
      group('c', 'g'),
      group('d', 'h'),
    ];
    assert.deepEqual(compactGroupContexts(contexts), [
      group('b', 'g'),
      contexts[2],
      group('c', 'g'),
      group('d', 'h'),
    ]);
  });

  it('gives v0 hooks the legacy shapes (docs/hooks.md "Configuration versions")', () => {
    const hook = config(
      'afterHelm: 1\nschedule: [{name: nightly, crontab: "0 3 * * *"}]\nonKubernetesEvent: [{name: pods, kind: Pod, event: [add]}]',
      MODULE,
    );
    const [nightly] = hook.schedule;
    const [pods] = hook.kubernetes;
    assert.ok(nightly && pods);
    assert.deepEqual(
      asRead([
        lifecycleContext(hook, 'afterHelm', {}),
        scheduleContext(hook, nightly, {}),
        eventContext(hook, pods, 'Added', snapshotItem(pods, pod('web-0')), {}),
        eventContext(
          hook,
          pods,
          'Modified',
          snapshotItem(pods, { kind: 'Namespace', metadata: { name: 'prod' } }),
          {},
        ),
      ]),
      [
        { binding: 'afterHelm' },
        { binding: 'nightly' },
        {
          binding: 'pods',
          resourceEvent: 'add',
          resourceNamespace: 'default',
          resourceKind: 'Pod',
          resourceName: 'web-0',
        },
        {
          binding: 'pods',
          resourceEvent: 'update',
          resourceNamespace: '',
          resourceKind: 'Namespace',
          resourceName: 'prod',
        },
      ],
    );
  });

  it('makes filterResult from jq outputs: none is null, one is itself, several are a list', () => {
    assert.equal(filterResultOf([]), null);
    assert.deepEqual(filterResultOf([{ a: 1 }]), { a: 1 });
    assert.deepEqual(filterResultOf(['a', 'b']), ['a', 'b']);
  });
});

describe('formatBindingContexts', () => {
  it('writes what Go writes: two-space indent, sorted keys, HTML characters escaped', () => {
    const text = formatBindingContexts([
      {
        binding: 'pods',
        type: 'Event',
        watchEvent: 'Added',
        object: { metadata: { name: 'a<b>&c', b: 1, a: [] } },
        filterResult: {},
      },
    ]);
    assert.equal(
      text,
      [
        '[',
        '  {',
        '    "binding": "pods",',
        '    "filterResult": {},',
        '    "object": {',
        '      "metadata": {',
        '        "a": [],',
        '        "b": 1,',
        '        "name": "a\\u003cb\\u003e\\u0026c"',
        '      }',
        '    },',
        '    "type": "Event",',
        '    "watchEvent": "Added"',
        '  }',
        ']',
      ].join('\n'),
    );
  });

  it('sorts number-like keys as strings, as Go does', () => {
    const text = formatBindingContexts([
      { binding: 'x', type: 'Schedule', snapshots: { '10': [], '2': [], b: [] } },
    ]);
    assert.ok(text.indexOf('"10"') < text.indexOf('"2"') && text.indexOf('"2"') < text.indexOf('"b"'));
  });
});
