import { formatDiffJson, formatDiffText } from '../../core/module-diff.ts';
import { moduleOwner } from '../../core/values.ts';
import { valuesView } from '../../core/values-view.ts';
import type { ValueOrigin } from '../../core/values-origin.ts';
import { stringifyYamlStream } from '../../core/yaml/yaml.ts';
import { DebugRouteError } from './debug-errors.ts';
import type { DebugOutput } from './debug-format.ts';
import type { DebugState, HookSnapshots } from './debug-state.ts';
import {
  formatGitStatus,
  formatHookSnapshots,
  formatModuleList,
  formatResourceMonitors,
  formatValueOrigins,
  NO_MONITOR,
} from './debug-text.ts';

/** A matched request: the state, the `{module}` / `{hook}` path parameters and the query. */
interface RouteRequest {
  readonly state: DebugState;
  readonly module: string;
  readonly hook: string;
  readonly query: URLSearchParams;
}

export interface DebugRoute {
  /** Segments; `{module}` and `{hook}` match one (percent-decoded) segment. */
  readonly path: string;
  readonly handle: (request: RouteRequest) => DebugOutput | Promise<DebugOutput>;
}

/**
 * The routes of docs/observability.md "Debug socket" that kaddon has, plus `render` with objects and
 * `/hook/…/snapshots`.
 */
export const DEBUG_ROUTES: readonly DebugRoute[] = [
  { path: '/', handle: () => ({ data: 'debug endpoint is alive', text: 'debug endpoint is alive\n' }) },
  { path: '/discovery', handle: () => discovery() },
  { path: '/queue/list', handle: ({ state, query }) => state.queueList(isTrue(query, 'showEmpty')) },
  { path: '/queue/main', handle: ({ state }) => state.queueMain() },
  { path: '/global/list', handle: ({ state }) => ({ data: { globalHooks: state.globalHooks() } }) },
  {
    path: '/global/values',
    handle: ({ state, query }) =>
      isTrue(query, 'origin') ? origins(state.valueOrigins(undefined)) : { data: state.globalValues() },
  },
  { path: '/global/config', handle: ({ state }) => ({ data: state.globalConfig() }) },
  { path: '/global/patches', handle: ({ state }) => ({ data: state.globalPatches() }) },
  {
    path: '/global/snapshots',
    handle: ({ state }) => snapshots(state.hookSnapshots().filter((hook) => hook.module === undefined)),
  },
  { path: '/module/list', handle: ({ state }) => moduleList(state) },
  { path: '/module/resource-monitor', handle: ({ state }) => resourceMonitors(state) },
  { path: '/module/{module}/values', handle: (request) => withGlobal(request, 'values') },
  { path: '/module/{module}/config', handle: (request) => withGlobal(request, 'config') },
  {
    path: '/module/{module}/patches',
    handle: ({ state, module }) => ({ data: state.modulePatches(module) }),
  },
  { path: '/module/{module}/render', handle: ({ state, module }) => render(state, module) },
  {
    path: '/module/{module}/diff',
    handle: async ({ state, module }) => {
      const diff = await state.moduleDiff(module);
      return {
        data: JSON.parse(formatDiffJson([diff])) as unknown,
        text: formatDiffText([diff], { colour: false }),
      };
    },
  },
  {
    path: '/module/{module}/resource-monitor',
    handle: ({ state, module }) => resourceMonitors(state, module),
  },
  {
    path: '/module/{module}/snapshots',
    handle: ({ state, module }) => snapshots(state.hookSnapshots().filter((hook) => hook.module === module)),
  },
  { path: '/hook/snapshots', handle: ({ state }) => snapshots(state.hookSnapshots()) },
  {
    path: '/hook/{hook}/snapshots',
    handle: ({ state, hook }) => snapshots(state.hookSnapshots().filter((entry) => entry.hook === hook)),
  },
  {
    path: '/git/status',
    handle: ({ state }) => {
      const status = state.gitStatus();
      return { data: status ?? { source: 'none' }, text: formatGitStatus(status) };
    },
  },
];

function discovery(): DebugOutput {
  const paths = DEBUG_ROUTES.map((route) => `GET ${route.path}`);
  return { data: paths, text: `${paths.join('\n')}\n` };
}

function isTrue(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === 'false') return false;
  if (value === 'true' || value === '') return true;
  throw new DebugRouteError(
    'debug-bad-request',
    `query parameter '${name}': '${value}' is not a boolean.`,
    'Use true or false.',
  );
}

/** `{"enabledModules": [...]}` as addon-operator answers, with every module and its state beside it. */
function moduleList(state: DebugState): DebugOutput {
  const modules = state.modules();
  const enabledModules = modules
    .filter((m) => m.enabled)
    .map((m) => m.name)
    .sort();
  return { data: { enabledModules, modules }, text: formatModuleList(modules) };
}

/**
 * Values or config of a module; with `global=true`, `{global, <moduleKey>}` (docs/observability.md "Debug
 * socket").
 */
function withGlobal({ state, module, query }: RouteRequest, kind: 'values' | 'config'): DebugOutput {
  if (kind === 'values' && isTrue(query, 'origin')) return origins(state.valueOrigins(module));
  const section = kind === 'values' ? state.moduleValues(module) : state.moduleConfig(module);
  if (!isTrue(query, 'global')) return { data: section };
  const global = kind === 'values' ? state.globalValues() : state.globalConfig();
  return { data: valuesView(moduleOwner(module), global, section) };
}

/** `--origin`: each value with its layer (docs/values.md "Where a value came from"). */
function origins(list: readonly ValueOrigin[]): DebugOutput {
  return { data: list, text: formatValueOrigins(list) };
}

async function render(state: DebugState, module: string): Promise<DebugOutput> {
  const objects = await state.renderedManifests(module);
  return {
    data: { apiVersion: 'v1', kind: 'List', items: objects },
    text: stringifyYamlStream(objects),
  };
}

/** Every enabled module (or the one asked for), with its resource ids or `No monitor`. */
function resourceMonitors(state: DebugState, module?: string): DebugOutput {
  const monitors = state.resourceMonitors();
  const names =
    module === undefined
      ? state
          .modules()
          .filter((m) => m.enabled)
          .map((m) => m.name)
      : [module];
  const dump = Object.fromEntries(names.map((name) => [name, monitors.get(name) ?? NO_MONITOR]));
  return { data: dump, text: formatResourceMonitors(dump) };
}

/** `{<hook>: {<binding>: {snapshot: [...]}}}`, shell-operator's SnapshotsDump without the counters. */
function snapshots(hooks: readonly HookSnapshots[]): DebugOutput {
  const data = Object.fromEntries(
    hooks.map(({ hook, bindings }) => [
      hook,
      Object.fromEntries(Object.entries(bindings).map(([binding, snapshot]) => [binding, { snapshot }])),
    ]),
  );
  return { data, text: formatHookSnapshots(hooks) };
}
