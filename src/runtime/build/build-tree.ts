import { errorMessage } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { GLOBAL_OWNER, moduleOwner, ownerValuesKey } from '../../core/values.ts';
import type { ConfigValues } from '../../core/values.ts';
import type { OwnerPatches } from '../../delivery/helm/deliver-module.ts';
import type { ChartTemplater } from '../../delivery/helm/render-chart-module.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import { loadModulesTree, type ModuleDefinition, type ModulesTree } from '../../loader/modules-tree.ts';
import { loadTreeSchemas } from '../../loader/values-schemas.ts';
import { MemoryConfigStore } from '../memory-config-store.ts';
import { runValueHooks, staticValues, type SnapshotObjects } from './prepare-values.ts';
import { enabledChartModules, renderCharts, type RenderedCharts } from './render-charts.ts';
import { renderTree, type ModuleValuesSource, type RenderTreeResult } from './render-tree.ts';
import { ValuesStore, type ValuesStoreInit } from '../values-store.ts';

export interface BuildTreeOptions {
  readonly dirs: readonly string[];
  /** Extra values in the layout of modules/values.yaml (`build --values`). */
  readonly extraValues?: JsonObject;
  readonly config: ConfigValues;
  /** $GLOBAL_HOOKS_DIR: global values schemas, and global hooks with runHooks. */
  readonly globalHooksDir: string | undefined;
  readonly sharedComponentRoots: readonly string[];
  readonly jq: JqEngine;
  /** Run the hooks that produce values before rendering (`build --run-hooks`). */
  readonly hooks?: {
    readonly runDeps: HookRunDeps;
    readonly snapshots: SnapshotObjects;
    readonly timeoutMs?: number;
  };
  /**
   * Without hooks: the values patches recorded at each module's last delivery (`kaddon diff`,
   * docs/drift.md "What diff compares"), replayed over the static and config values of now in place
   * of running its hooks. A module without any keeps its static values.
   */
  readonly recordedPatches?: (module: string) => OwnerPatches | undefined;
  /** How chart modules are rendered; without it an enabled chart module is an error. */
  readonly charts?: BuildChartsOptions;
}

export interface BuildChartsOptions {
  /**
   * The helm that renders the charts, asked for once and only when an enabled module is a chart
   * (those modules are passed, for its error when there is no helm): a tree without chart modules
   * needs no helm.
   */
  readonly helm: (chartModules: readonly ModuleDefinition[]) => ChartTemplater;
  /** The release namespace the charts are rendered for (`.Release.Namespace`). */
  readonly namespace: string;
  readonly tmpRoot?: string;
}

export interface BuildTreeResult extends RenderTreeResult {
  readonly tree: ModulesTree;
}

/**
 * `kaddon build`: the values store over the tree's values files, config values, schema defaults
 * and (with hooks) the hooks' patches; then the render of the enabled modules.
 */
export async function buildTree(options: BuildTreeOptions): Promise<BuildTreeResult> {
  const tree = loadModulesTree(options.dirs);
  const init: ValuesStoreInit = {
    statics: { ...tree.statics, ...(options.extraValues ? { extra: options.extraValues } : {}) },
    modules: tree.modules.map((module) => module.name),
    schemas: loadTreeSchemas(tree, options.globalHooksDir),
    configStore: new MemoryConfigStore(options.config),
  };
  const store = await ValuesStore.open(init);
  const prepared = options.hooks
    ? {
        ...(await runValueHooks({
          tree,
          store,
          globalHooksDir: options.globalHooksDir,
          jq: options.jq,
          ...options.hooks,
        })),
        storeFor: () => store,
      }
    : await recordedValues(tree, init, store, options.recordedPatches);
  const { warnings, storeFor, ...values } = prepared;
  const charts = await renderBuildCharts(tree, values, storeFor, options.charts);
  const result = renderTree({
    tree,
    values,
    sharedComponentRoots: options.sharedComponentRoots,
    jq: options.jq,
    ...(charts ? { charts } : {}),
  });
  return {
    ...result,
    tree,
    warnings: [...warnings, ...disabledRequirements(tree, values.enabledModules), ...result.warnings],
  };
}

/**
 * An enabled module that requires a disabled one renders here, but the operator never runs it
 * (docs/modules.md "module.yaml"): said before it is found in the cluster.
 */
function disabledRequirements(tree: ModulesTree, enabled: readonly string[]): string[] {
  return tree.modules
    .filter((module) => enabled.includes(module.name))
    .flatMap((module) =>
      module.requires
        .filter((required) => !enabled.includes(required))
        .map(
          (required) =>
            `module '${module.name}' requires module '${required}', which is disabled: the operator holds '${module.name}' (DependencyNotReady) until '${required}' is enabled and Ready`,
        ),
    );
}

/**
 * The static values, with each enabled module's recorded values patches replayed in a store of its
 * own (global patches differ between releases delivered at different times). Patches that no longer
 * apply to the tree of now are left out with a warning.
 */
async function recordedValues(
  tree: ModulesTree,
  init: ValuesStoreInit,
  store: ValuesStore,
  recorded: BuildTreeOptions['recordedPatches'],
): Promise<ModuleValuesSource & { warnings: string[]; storeFor: (module: string) => ValuesStore }> {
  const base = staticValues(tree, store);
  const warnings: string[] = [];
  const stores = new Map<string, ValuesStore>();
  for (const name of recorded ? base.enabledModules : []) {
    try {
      const patches = recorded?.(name);
      if (patches === undefined || [...patches.values()].every((patch) => patch.length === 0)) continue;
      const own = await ValuesStore.open(init);
      for (const owner of [GLOBAL_OWNER, moduleOwner(name)])
        await own.restorePatches(owner, patches.get(ownerValuesKey(owner)) ?? []);
      stores.set(name, own);
    } catch (error: unknown) {
      warnings.push(
        `module '${name}': the values patches recorded at its last delivery do not apply to this tree (${errorMessage(error)}); its values are rendered without them. Run with --run-hooks to compute them.`,
      );
    }
  }
  const storeFor = (name: string): ValuesStore => stores.get(name) ?? store;
  return {
    enabledModules: base.enabledModules,
    viewFor: (name) => storeFor(name).valuesView(moduleOwner(name), base.enabledModules),
    warnings,
    storeFor,
  };
}

async function renderBuildCharts(
  tree: ModulesTree,
  values: ModuleValuesSource,
  storeFor: (module: string) => ValuesStore,
  options: BuildChartsOptions | undefined,
): Promise<RenderedCharts | undefined> {
  const chartModules = enabledChartModules(tree, values.enabledModules);
  if (chartModules.length === 0 || !options) return undefined;
  return renderCharts(tree, values.enabledModules, {
    helm: options.helm(chartModules),
    namespace: options.namespace,
    helmValues: (name) => storeFor(name).helmValues(name),
    ...(options.tmpRoot === undefined ? {} : { tmpRoot: options.tmpRoot }),
  });
}
