import path from 'node:path';
import { asError, KaddonError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { valueAtPath } from '../../core/values.ts';
import type { YamlExpansion } from '../../core/yaml/yaml.ts';
import type { ChartObject } from '../../delivery/helm/render-chart-module.ts';
import { isConditionTrue, type JqEngine } from '../../jq/jq-engine.ts';
import { declaredKustomizationKind } from '../../loader/kustomization-file.ts';
import { loadKustomization } from '../../loader/kustomization-loader.ts';
import type { ModuleDefinition, ModulesTree } from '../../loader/modules-tree.ts';
import { CompositionMemo } from '../../pipeline/incremental-composition.ts';
import { renderModules, type ModuleInput, type RenderedModules } from '../../pipeline/render-modules.ts';
import { chartModuleNode } from './chart-module-node.ts';
import { displayPath } from '../../core/display-path.ts';

/** A `$(name)` left verbatim because no value and no kustomize var has that name. */
export interface UnresolvedReference {
  readonly module: string;
  readonly name: string;
  readonly file: string;
  readonly line: number;
}

/** Which modules are enabled, in order, and the values view each module is rendered with. */
export interface ModuleValuesSource {
  readonly enabledModules: readonly string[];
  /** `{global, <moduleKey>}` with `global.enabledModules` (docs/architecture.md "$(var) expansion"). */
  viewFor(name: string): JsonObject;
  /**
   * A text equal for equal views, cheaper than printing each view: what the ModuleLoadCache
   * compares (ValuesStore.renderViews). Without it the view itself is printed.
   */
  viewKeyFor?(name: string): string;
}

export interface RenderTreeInput {
  readonly tree: ModulesTree;
  readonly values: ModuleValuesSource;
  /** Folders searched for `shared: NAME` components, in order. */
  readonly sharedComponentRoots: readonly string[];
  readonly jq: JqEngine;
  /** Paths in messages are shown relative to this folder. */
  readonly displayBase?: string;
  /**
   * What each enabled chart module's chart rendered, by module name (renderCharts): its base
   * resources. Required for every enabled module whose source is 'chart'.
   */
  readonly charts?: ReadonlyMap<string, readonly ChartObject[]>;
  /** Reuse of Kustomization modules read earlier with the same values view (the operator's). */
  readonly cache?: ModuleLoadCache;
  /**
   * The operator's render: a module that fails to load or build is left out and reported in
   * `failed` when it cannot change other modules (a Kustomization or chart module); a Component
   * module's failure, or one whose kind cannot be told, still fails the render.
   */
  readonly isolateFailures?: boolean;
  /** Chart modules whose `helm template` failed (renderCharts with isolateFailures). */
  readonly failedCharts?: ReadonlyMap<string, Error>;
}

export interface RenderTreeResult {
  readonly enabledModules: readonly string[];
  /** With isolateFailures: the modules left out, with their errors. */
  readonly failed: ReadonlyMap<string, Error>;
  readonly rendered: RenderedModules;
  readonly unresolved: readonly UnresolvedReference[];
  readonly warnings: readonly string[];
}

/** An enabled chart module whose rendered chart the caller did not pass (see renderCharts). */
class ModuleSourceError extends KaddonError {
  readonly code = 'chart-not-rendered';
  constructor(module: ModuleDefinition) {
    super(
      `module '${module.name}': ${module.dir} is a Helm chart module (Chart.yaml or templates/) and its chart was not rendered.`,
      'Render the enabled chart modules with helm first (renderCharts, or renderTreeWithCharts).',
    );
  }
}

/**
 * Renders the enabled modules of a tree (docs/architecture.md data flow): each enabled module is read with
 * its own values view, then the modules are composed in order.
 */
export function renderTree(input: RenderTreeInput): RenderTreeResult {
  const enabledNames = new Set(input.values.enabledModules);
  const enabled = input.tree.modules.filter((module) => enabledNames.has(module.name));
  const unresolved: UnresolvedReference[] = [];
  const warnings: string[] = [...input.tree.warnings];
  const failed = new Map<string, Error>(input.failedCharts ?? []);
  const modules: ModuleInput[] = [];
  for (const module of enabled) {
    if (failed.has(module.name)) continue;
    try {
      const node = loadModule(module, input, unresolved, warnings);
      modules.push({ name: module.name, node });
    } catch (error: unknown) {
      if (input.isolateFailures !== true || !isIsolated(module)) throw error;
      failed.set(module.name, asError(error));
    }
  }
  const options = {
    isolateFailures: input.isolateFailures === true,
    // With the operator's cache the same node comes back for an unchanged module: its build too.
    reuseBuilds: input.cache !== undefined,
  };
  // With it, only the modules whose node is new are composed again, when that gives the same.
  const rendered = input.cache
    ? input.cache.composition.render(modules, options)
    : renderModules(modules, options);
  for (const [module, error] of rendered.failed) failed.set(module, error);
  return {
    enabledModules: enabled.map((module) => module.name),
    failed,
    rendered,
    unresolved: unresolved.filter((ref) => !rendered.declaredVars.has(ref.name)),
    warnings: [...warnings, ...rendered.warnings],
  };
}

/** Whether a module's failure leaves the other modules' slices as they would be: not a Component. */
function isIsolated(module: ModuleDefinition): boolean {
  return module.source === 'chart' || declaredKustomizationKind(module.dir) === 'Kustomization';
}

/** A Kustomization module as read for one values view. */
interface LoadedModule {
  readonly node: ModuleInput['node'];
  readonly unresolved: readonly UnresolvedReference[];
  readonly warnings: readonly string[];
}

/**
 * The Kustomization modules of one tree as last read, each with the values view it was read with:
 * the operator renders the whole tree for every module run, and a module whose view did not change
 * is not read, parsed and expanded again. The pipeline copies what it takes from a node, so a node
 * is reused as it is. Files are read once per view: edits on disk are seen when the view changes
 * or a new tree (a new revision) is loaded.
 */
export class ModuleLoadCache {
  /** The tree's last composition, to compose the next from the modules that changed. */
  readonly composition = new CompositionMemo();
  readonly #entries = new Map<string, { readonly key: string; readonly loaded: LoadedModule }>();

  readonly #charts = new Map<
    string,
    { readonly objects: readonly ChartObject[]; readonly loaded: LoadedModule }
  >();

  load(module: string, key: string, read: () => LoadedModule): LoadedModule {
    const entry = this.#entries.get(module);
    if (entry?.key === key) return entry.loaded;
    const loaded = read();
    this.#entries.set(module, { key, loaded });
    return loaded;
  }

  /**
   * A chart module's node, the same while its chart's render is the same array (the operator's chart
   * cache gives it back while the module's helm values are unchanged): the composition then sees
   * an unchanged module and does not build or compose it again.
   */
  loadChart(module: string, objects: readonly ChartObject[], read: () => LoadedModule): LoadedModule {
    const entry = this.#charts.get(module);
    if (entry?.objects === objects) return entry.loaded;
    const loaded = read();
    this.#charts.set(module, { objects, loaded });
    return loaded;
  }
}

function loadModule(
  module: ModuleDefinition,
  input: RenderTreeInput,
  unresolved: UnresolvedReference[],
  warnings: string[],
): ModuleInput['node'] {
  if (module.source === 'none') return undefined;
  if (module.source === 'chart') {
    // A chart's objects come rendered with its values: no view is made for it.
    const objects = input.charts?.get(module.name);
    if (!objects) throw new ModuleSourceError(module);
    const read = (): LoadedModule => ({
      node: chartModuleNode(
        module.name,
        displayPath(module.dir, input.displayBase ?? process.cwd()),
        objects,
      ),
      unresolved: [],
      warnings: [],
    });
    return (input.cache ? input.cache.loadChart(module.name, objects, read) : read()).node;
  }
  const values = input.values;
  // The view is made only when the module is read; without viewKeyFor it is its own key.
  let view: JsonObject | undefined;
  const read = (): LoadedModule => readModule(module, view ?? values.viewFor(module.name), input);
  const loaded = !input.cache
    ? read()
    : input.cache.load(
        module.name,
        values.viewKeyFor?.(module.name) ?? JSON.stringify((view = values.viewFor(module.name))),
        read,
      );
  unresolved.push(...loaded.unresolved);
  warnings.push(...loaded.warnings);
  return loaded.node;
}

/** A Kustomization module's files read and `$(var)`-expanded with its view. */
function readModule(module: ModuleDefinition, view: JsonObject, input: RenderTreeInput): LoadedModule {
  const displayBase = input.displayBase ?? process.cwd();
  const unresolved: UnresolvedReference[] = [];
  const expansion: YamlExpansion = {
    lookup: (name) => valueAtPath(view, name),
    onUnresolved: (name, file, line) => unresolved.push({ module: module.name, name, file, line }),
  };
  const result = loadKustomization(module.dir, {
    displayBase,
    allowedRoots: [...input.tree.dirs, ...input.sharedComponentRoots].map((dir) => path.resolve(dir)),
    expansion,
    components: {
      sharedRoots: input.sharedComponentRoots,
      isEnabled: (when, file) => isConditionTrue(input.jq.evaluate(when, view, `${file}: components when`)),
    },
  });
  return { node: result.node, unresolved, warnings: result.warnings };
}
