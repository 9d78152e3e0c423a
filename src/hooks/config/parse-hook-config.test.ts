import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadJqEngine } from '../../jq/jq-engine.ts';
import type { HookIdentity, KubernetesBinding } from '../hook-config.ts';
import { parseHookConfig } from './parse-hook-config.ts';

const GLOBAL: HookIdentity = { name: '001-foo/bar.sh', owner: { kind: 'global' } };
const MODULE: HookIdentity = { name: 'hooks/bar.sh', owner: { kind: 'module', module: 'echo-server' } };

function fixture(name: string): string {
  return readFileSync(path.join(import.meta.dirname, '..', 'hook-config-fixtures', name), 'utf8');
}

/** A kubernetes binding with every default addon-operator applies. */
function kubernetesDefaults(name: string, kind: string): KubernetesBinding {
  return {
    name,
    kind,
    executeHookOnEvent: ['Added', 'Modified', 'Deleted'],
    executeHookOnSynchronization: true,
    waitForSynchronization: true,
    keepFullObjectsInMemory: true,
    allowFailure: false,
    queue: 'main',
    includeSnapshotsFrom: [],
  };
}

describe("parseHookConfig: the examples of addon-operator's documentation", () => {
  const ordered = [
    ['on-startup', 'onStartup', GLOBAL],
    ['before-all', 'beforeAll', GLOBAL],
    ['after-all', 'afterAll', GLOBAL],
    ['on-startup', 'onStartup', MODULE],
    ['before-helm', 'beforeHelm', MODULE],
    ['after-helm', 'afterHelm', MODULE],
    ['after-delete-helm', 'afterDeleteHelm', MODULE],
  ] as const;
  for (const [file, binding, hook] of ordered) {
    it(`reads ${binding}: ORDER for a ${hook.owner.kind} hook (docs/hooks.md "Bindings")`, () => {
      const { config, warnings } = parseHookConfig(fixture(`documented-${file}.yaml`), hook);
      assert.deepEqual(config, { version: 'v1', order: { [binding]: 10 }, schedule: [], kubernetes: [] });
      assert.deepEqual(warnings, []);
    });
  }

  it('reads the global hook of docs/hooks.md "Binding contexts"', () => {
    const { config } = parseHookConfig(fixture('documented-binding-context.yaml'), GLOBAL);
    assert.deepEqual(config, {
      version: 'v1',
      order: { beforeAll: 10 },
      schedule: [],
      kubernetes: [
        { ...kubernetesDefaults('monitor-pods', 'Pod'), apiVersion: 'v1', jqFilter: '.metadata.labels' },
      ],
    });
  });

  for (const [owner, hook, lifecycle] of [
    ['global', GLOBAL, 'beforeAll'],
    ['module', MODULE, 'beforeHelm'],
  ] as const) {
    it(`reads docs/hooks.md "Binding contexts", waitForSynchronization and all`, () => {
      const { config } = parseHookConfig(fixture(`documented-synchronization-${owner}.yaml`), hook);
      const labels = { apiVersion: 'v1', jqFilter: '.metadata.labels' };
      assert.deepEqual(config.order, { [lifecycle]: 10 });
      assert.deepEqual(config.kubernetes, [
        { ...kubernetesDefaults('monitor-pods', 'Pod'), ...labels },
        {
          ...kubernetesDefaults('monitor-nodes', 'Node'),
          ...labels,
          queue: 'nodes-handling',
          executeHookOnSynchronization: false,
        },
        {
          ...kubernetesDefaults('monitor-cms', 'ConfigMap'),
          ...labels,
          queue: 'config-map-handling',
          waitForSynchronization: false,
        },
        {
          ...kubernetesDefaults('monitor-secrets', 'Secret'),
          ...labels,
          queue: 'secrets-handling',
          executeHookOnSynchronization: false,
          waitForSynchronization: false,
        },
      ]);
    });
  }
});

describe('parseHookConfig: v1 options', () => {
  it('reads JSON as well as YAML', () => {
    const json = '{"configVersion":"v1","onStartup":1,"schedule":[{"crontab":"*/5 * * * *"}]}';
    const { config } = parseHookConfig(json, GLOBAL);
    assert.equal(config.order.onStartup, 1);
    assert.equal(config.schedule[0]?.name, 'schedule');
    const tabbed = '{\n\t"configVersion": "v1",\n\t"afterAll": 2\n}\n';
    assert.deepEqual(parseHookConfig(tabbed, GLOBAL).config.order, { afterAll: 2 });
  });

  it('reads every kubernetes option', () => {
    const { config, warnings } = parseHookConfig(
      `configVersion: v1
kubernetes:
- name: pods
  apiVersion: apps/v1
  kind: Deployment
  nameSelector: {matchNames: [web, api]}
  labelSelector:
    matchLabels: {app.kubernetes.io/name: web}
    matchExpressions:
    - {key: tier, operator: In, values: [cache, db]}
    - {key: canary, operator: DoesNotExist}
  fieldSelector:
    matchExpressions:
    - {field: status.phase, operator: Equals, value: Running}
  namespace:
    nameSelector: {matchNames: [prod]}
  jqFilter: '{name: .metadata.name}'
  executeHookOnEvent: [Added, Deleted]
  executeHookOnSynchronization: false
  waitForSynchronization: false
  keepFullObjectsInMemory: false
  allowFailure: true
  queue: web
  group: apps
  includeSnapshotsFrom: [pods]
  resynchronizationPeriod: 10m
`,
      MODULE,
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(config.kubernetes, [
      {
        name: 'pods',
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        nameSelector: { matchNames: ['web', 'api'] },
        labelSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['cache', 'db'] },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        },
        fieldSelector: {
          matchExpressions: [{ field: 'status.phase', operator: 'Equals', value: 'Running' }],
        },
        namespace: { nameSelector: { matchNames: ['prod'] } },
        jqFilter: '{name: .metadata.name}',
        executeHookOnEvent: ['Added', 'Deleted'],
        executeHookOnSynchronization: false,
        waitForSynchronization: false,
        keepFullObjectsInMemory: false,
        allowFailure: true,
        queue: 'web',
        group: 'apps',
        includeSnapshotsFrom: ['pods'],
        resynchronizationPeriod: '10m',
      },
    ]);
  });

  it('applies the defaults: binding names, main queue, all events, synchronization on', () => {
    const { config } = parseHookConfig(
      'configVersion: v1\nkubernetes: [{kind: Pod}]\nschedule: [{crontab: "0 * * * *"}]',
      GLOBAL,
    );
    assert.deepEqual(config.kubernetes, [kubernetesDefaults('kubernetes', 'Pod')]);
    assert.deepEqual(config.schedule, [
      {
        name: 'schedule',
        crontab: '0 * * * *',
        schedule: { kind: 'fields', pattern: '0 0 * * * *' },
        allowFailure: false,
        queue: 'main',
        includeSnapshotsFrom: [],
      },
    ]);
  });

  it('keeps waitForSynchronization: false only with an explicit queue, as shell-operator does', () => {
    const { config } = parseHookConfig(
      'configVersion: v1\nkubernetes:\n- {kind: Pod, waitForSynchronization: false}\n- {kind: Pod, name: b, queue: q, waitForSynchronization: false}',
      GLOBAL,
    );
    assert.deepEqual(
      config.kubernetes.map((b) => b.waitForSynchronization),
      [true, false],
    );
  });

  it('takes executeHookOnEvent over its alias watchEvent, and [] as "never"', () => {
    const { config } = parseHookConfig(
      `configVersion: v1
kubernetes:
- {name: a, kind: Pod, watchEvent: [Modified]}
- {name: b, kind: Pod, watchEvent: [Modified], executeHookOnEvent: [Deleted]}
- {name: c, kind: Pod, executeHookOnEvent: []}`,
      GLOBAL,
    );
    assert.deepEqual(
      config.kubernetes.map((b) => b.executeHookOnEvent),
      [['Modified'], ['Deleted'], []],
    );
  });

  it('reads every schedule option, 6-field crontabs and @every', () => {
    const { config } = parseHookConfig(
      `configVersion: v1
kubernetes: [{name: pods, kind: Pod}]
schedule:
- name: every-10s
  crontab: "*/10 * * * * *"
  allowFailure: true
  queue: slow
  group: pods
  includeSnapshotsFrom: [pods]
- {name: hourly, crontab: "@every 1h30m"}
- {name: zoned, crontab: "TZ=Europe/Berlin 0 3 * * MON-FRI"}`,
      GLOBAL,
    );
    assert.deepEqual(config.schedule[0], {
      name: 'every-10s',
      crontab: '*/10 * * * * *',
      schedule: { kind: 'fields', pattern: '*/10 * * * * *' },
      allowFailure: true,
      queue: 'slow',
      group: 'pods',
      includeSnapshotsFrom: ['pods'],
    });
    assert.deepEqual(config.schedule[1]?.schedule, { kind: 'every', everyMs: 5_400_000 });
    assert.deepEqual(config.schedule[2]?.schedule, {
      kind: 'fields',
      pattern: '0 0 3 * * MON-FRI',
      timeZone: 'Europe/Berlin',
    });
  });

  it('adds the kubernetes bindings of a group to includeSnapshotsFrom', () => {
    const { config } = parseHookConfig(
      `configVersion: v1
schedule:
- {name: periodic, crontab: "0 */3 * * *", group: pods}
- {name: lonely, crontab: "0 * * * *", group: nobody}
kubernetes:
- {name: monitor-pods, kind: Pod, group: pods}
- {name: configmap-content, kind: ConfigMap, group: pods, includeSnapshotsFrom: [extra]}
- {name: extra, kind: Secret}`,
      GLOBAL,
    );
    assert.deepEqual(
      config.schedule.map((b) => b.includeSnapshotsFrom),
      [['monitor-pods', 'configmap-content'], []],
    );
    assert.deepEqual(
      config.kubernetes.map((b) => b.includeSnapshotsFrom),
      [['monitor-pods', 'configmap-content'], ['extra', 'monitor-pods', 'configmap-content'], []],
    );
  });

  it('reads settings under either name of the interval (docs/architecture.md)', () => {
    for (const key of ['executionMinInterval', 'executionMinPeriod']) {
      const { config } = parseHookConfig(
        `configVersion: v1\nsettings: {${key}: 1m30s, executionBurst: 2}`,
        GLOBAL,
      );
      assert.deepEqual(config.settings, { executionMinIntervalMs: 90_000, executionBurst: 2 });
    }
  });

  it('reads YAML as Go does: yes is true', () => {
    const { config } = parseHookConfig(
      'configVersion: v1\nkubernetes: [{kind: Pod, allowFailure: yes}]',
      GLOBAL,
    );
    assert.equal(config.kubernetes[0]?.allowFailure, true);
  });

  it('accepts beforeDeleteHelm for module hooks, as current addon-operator does', () => {
    const { config } = parseHookConfig('configVersion: v1\nbeforeDeleteHelm: 5', MODULE);
    assert.deepEqual(config.order, { beforeDeleteHelm: 5 });
  });

  it('accepts the webhook bindings addon-operator ignores, with a warning', () => {
    const { config, warnings } = parseHookConfig(
      'configVersion: v1\nonStartup: 1\nkubernetesValidating: [{name: check.example.com}]',
      GLOBAL,
    );
    assert.deepEqual(config.order, { onStartup: 1 });
    assert.deepEqual(warnings, [
      "hook '001-foo/bar.sh': kubernetesValidating is ignored: addon-operator does not run webhook bindings, and neither does kaddon.",
    ]);
  });

  it('watches by namespace.labelSelector alone when both namespace selectors are set', () => {
    const { config, warnings } = parseHookConfig(
      'configVersion: v1\nkubernetes:\n- kind: Pod\n  namespace: {nameSelector: {matchNames: [a]}, labelSelector: {matchLabels: {env: prod}}}',
      MODULE,
    );
    assert.deepEqual(config.kubernetes[0]?.namespace, { labelSelector: { matchLabels: { env: 'prod' } } });
    assert.deepEqual(warnings, [
      "hook 'hooks/bar.sh' in module 'echo-server': kubernetes[0].namespace.nameSelector is ignored because labelSelector is set.",
    ]);
  });

  it('compiles jqFilter when given a jq engine', async () => {
    const jq = await loadJqEngine();
    const ok = parseHookConfig(
      'configVersion: v1\nkubernetes: [{kind: Pod, jqFilter: ".items[] | .x"}]',
      GLOBAL,
      { jq },
    );
    assert.equal(ok.config.kubernetes[0]?.jqFilter, '.items[] | .x');
  });
});

describe('parseHookConfig: v0', () => {
  it('reads a legacy config without configVersion', () => {
    const { config, warnings } = parseHookConfig(
      `onStartup: 5
afterHelm: 3
schedule:
- {name: nightly, crontab: "0 3 * * *", allowFailure: true, ignoredField: 1}
onKubernetesEvent:
- name: pods
  kind: Pod
  event: [add, delete]
  selector: {matchLabels: {app: web}}
  objectName: web-0
  namespaceSelector: {matchNames: [prod]}
  jqFilter: .status
  allowFailure: true
- {kind: ConfigMap, namespaceSelector: {any: true}, event: [update]}`,
      MODULE,
    );
    assert.deepEqual(warnings, []);
    assert.equal(config.version, 'v0');
    assert.deepEqual(config.order, { onStartup: 5, afterHelm: 3 });
    assert.deepEqual(config.schedule, [
      {
        name: 'nightly',
        crontab: '0 3 * * *',
        schedule: { kind: 'fields', pattern: '0 0 3 * * *' },
        allowFailure: true,
        queue: 'main',
        includeSnapshotsFrom: [],
      },
    ]);
    const noSynchronization = { executeHookOnSynchronization: false, waitForSynchronization: false };
    assert.deepEqual(config.kubernetes, [
      {
        ...kubernetesDefaults('pods', 'Pod'),
        ...noSynchronization,
        nameSelector: { matchNames: ['web-0'] },
        labelSelector: { matchLabels: { app: 'web' } },
        namespace: { nameSelector: { matchNames: ['prod'] } },
        jqFilter: '.status',
        executeHookOnEvent: ['Added', 'Deleted'],
        allowFailure: true,
      },
      {
        ...kubernetesDefaults('onKubernetesEvent', 'ConfigMap'),
        ...noSynchronization,
        executeHookOnEvent: ['Modified'],
      },
    ]);
  });

  it('runs a v0 binding without an event list on no event, as shell-operator does, and says so', () => {
    const { config, warnings } = parseHookConfig('onKubernetesEvent: [{kind: Pod}]', GLOBAL);
    assert.deepEqual(config.kubernetes[0]?.executeHookOnEvent, []);
    assert.match(warnings[0] ?? '', /onKubernetesEvent\[0\] has no 'event' list/);
  });
});
