import type { JsonObject } from '../core/json.ts';
import type { ConfigValues } from '../core/values.ts';
import type { ChartTemplater } from '../delivery/helm/render-chart-module.ts';
import type { HookRunDeps } from '../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../jq/jq-engine.ts';
import { loadModulesTree, type ModuleDefinition, type ModulesTree } from '../loader/modules-tree.ts';
import { loadTreeSchemas } from '../loader/values-schemas.ts';
import { MemoryConfigStore } from './memory-config-store.ts';
import { runValueHooks, staticValues, type SnapshotObjects } from './prepare-values.ts';
import { enabledChartModules, renderCharts, type RenderedCharts } from './render-charts.ts';
import { renderTree, type ModuleValuesSource, type RenderTreeResult } from './render-tree.ts';
import { ValuesStore } from './values-store.ts';

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
  const schemas = loadTreeSchemas(tree, options.globalHooksDir);
  const store = await ValuesStore.open({
    statics: { ...tree.statics, ...(options.extraValues ? { extra: options.extraValues } : {}) },
    modules: tree.modules.map((module) => module.name),
    schemas,
    configStore: new MemoryConfigStore(options.config),
  });
  const prepared = options.hooks
    ? await runValueHooks({
        tree,
        store,
        globalHooksDir: options.globalHooksDir,
        jq: options.jq,
        ...options.hooks,
      })
    : { ...staticValues(tree, store), warnings: [] };
  const { warnings, ...values } = prepared;
  const charts = await renderBuildCharts(tree, values, store, options.charts);
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

async function renderBuildCharts(
  tree: ModulesTree,
  values: ModuleValuesSource,
  store: ValuesStore,
  options: BuildChartsOptions | undefined,
): Promise<RenderedCharts | undefined> {
  const chartModules = enabledChartModules(tree, values.enabledModules);
  if (chartModules.length === 0 || !options) return undefined;
  return renderCharts(tree, values.enabledModules, {
    helm: options.helm(chartModules),
    namespace: options.namespace,
    helmValues: (name) => store.helmValues(name),
    ...(options.tmpRoot === undefined ? {} : { tmpRoot: options.tmpRoot }),
  });
}
