import type { JsonObject } from '../../src/core/json.ts';
import { KaddonError } from '../../src/core/errors.ts';
import type { DebugState, HookSnapshots } from '../../src/observability/debug/debug-state.ts';
import { formatQueueDump, type QueueDump } from '../../src/runtime/queue/queue-dump.ts';

export const NOW = Date.UTC(2026, 0, 1);

export const queueDump: QueueDump = {
  active: [
    {
      name: 'main',
      tasksCount: 1,
      status: 'run first task',
      tasks: [
        {
          index: 1,
          id: 't1',
          type: 'ModuleRun',
          description: 'ModuleRun:main:echo-server',
          attempts: 0,
          failures: 0,
        },
      ],
    },
  ],
  summary: { mainQueueTasks: 1, otherQueues: { active: 0, empty: 0, tasks: 0 }, totalTasks: 1 },
};

export const emptyQueue = { name: 'parallel_queue_0', tasksCount: 0, status: '', tasks: [] };

/** `queue list` text as the operator formats it, without and with empty queues. */
export const queueListText = formatQueueDump(queueDump, NOW);
export const queueListWithEmptyText = formatQueueDump({ ...queueDump, empty: [emptyQueue] }, NOW);

export const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'kaddon' },
  spec: { replicas: 2 },
};

export const snapshots: readonly HookSnapshots[] = [
  { hook: '000-nodes.sh', bindings: { nodes: [{ filterResult: 'node-a' }] } },
  {
    hook: 'echo-server/hooks/pods.py',
    module: 'echo-server',
    bindings: {
      pods: [
        {
          object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'kaddon' } },
          filterResult: { ready: true },
        },
      ],
    },
  },
];

/** Raised by the `broken` module's render, as a module with a bad kustomization would. */
class FakeRenderError extends KaddonError {
  readonly code = 'fake-render';
  constructor() {
    super("module 'broken': kustomization.yaml: patch target Deployment/web not found.", 'Check the target.');
  }
}

/** A DebugState with fixed data: two enabled modules (one monitored) and one disabled. */
export function fakeDebugState(): DebugState {
  return {
    queueList: (showEmpty) => {
      const data: QueueDump = showEmpty ? { ...queueDump, empty: [emptyQueue] } : queueDump;
      return { data, text: formatQueueDump(data, NOW) };
    },
    queueMain: () => ({ data: queueDump.active[0], text: "Queue 'main': length 1\n" }),
    globalHooks: () => ['000-nodes.sh', '100-certs.sh'],
    globalValues: () => ({ clusterName: 'dev', discovery: { nodes: 3 } }),
    valueOrigins: (module) =>
      module === undefined
        ? [
            { path: '/clusterName', value: 'dev', origin: 'ConfigMap' },
            { path: '/discovery/nodes', value: 3, origin: "hook '000-nodes.sh'" },
          ]
        : [{ path: '/replicas', value: 2, origin: "the module's values.yaml" }],
    globalConfig: () => ({ clusterName: 'dev' }),
    globalPatches: () => [{ op: 'add', path: '/discovery/nodes', value: 3 }],
    modules: () => [
      { name: 'echo-server', enabled: true, state: 'Ready' },
      { name: 'broken', enabled: true, state: 'Failed: render' },
      { name: 'cert-manager', enabled: false, state: 'Disabled' },
    ],
    moduleValues: (name) => ({ replicas: name.length }),
    moduleConfig: () => ({ replicas: 2 }),
    modulePatches: () => [{ op: 'add', path: '/echoServer/replicas', value: 11 }],
    resourceMonitors: () => new Map([['echo-server', ['kaddon/Deployment/web', 'kaddon/Service/web']]]),
    renderedManifests: (name) =>
      name === 'broken' ? Promise.reject(new FakeRenderError()) : Promise.resolve([deployment]),
    moduleDiff: (name) =>
      Promise.resolve({
        module: name,
        action: 'upgrade' as const,
        changes: [
          {
            action: 'update' as const,
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: 'kaddon',
            name: 'settings',
            before: { data: { color: 'blue' } },
            after: { data: { color: 'green' } },
          },
        ],
      }),
    hookSnapshots: () => snapshots,
    gitStatus: () => undefined,
  };
}
