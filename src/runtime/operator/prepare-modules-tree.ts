import { discoverGlobalHooks, discoverModuleHooks, type HookDiscovery } from '../../hooks/discover-hooks.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import { loadModulesTree, type ModulesTree } from '../../loader/modules-tree.ts';
import { loadTreeSchemas, type TreeSchemas } from '../../loader/values-schemas.ts';
import { loadHooks, type LoadedHook } from '../lifecycle-hooks.ts';
import type { ValuesStoreModules } from '../values-store.ts';
import type { TreeHooks } from './hook-registry.ts';

/** A modules tree and the folders beside it: one revision of a Git repository. */
export interface ModulesTreeLocation {
  /** What names the tree in logs and the debug socket: the commit. */
  readonly revision: string;
  readonly modulesDir: string;
  readonly globalHooksDir: string | undefined;
  readonly sharedComponentRoots: readonly string[];
}

/** A tree with everything the operator takes from it loaded, ready to be switched to. */
export interface PreparedTree extends ModulesTreeLocation {
  readonly tree: ModulesTree;
  readonly schemas: TreeSchemas;
  readonly hooks: TreeHooks;
  /** Tree and hook warnings, logged when the operator switches to the tree. */
  readonly warnings: readonly string[];
}

export interface PrepareTreeDeps {
  readonly runDeps: HookRunDeps;
  readonly jq: JqEngine;
  /** UNNUMBERED_MODULE_ORDER: the order of modules without a numeric prefix. */
  readonly unnumberedOrder?: number;
}

/**
 * Loads a tree as the operator uses it: modules and values files, values schemas, and the
 * `--config` of every global and module hook. The first error throws, naming its file.
 */
export async function prepareModulesTree(
  location: ModulesTreeLocation,
  deps: PrepareTreeDeps,
): Promise<PreparedTree> {
  const tree = loadModulesTree(
    [location.modulesDir],
    deps.unnumberedOrder === undefined ? {} : { unnumberedOrder: deps.unnumberedOrder },
  );
  const schemas = loadTreeSchemas(tree, location.globalHooksDir);
  const warnings = [...tree.warnings];
  const global =
    location.globalHooksDir === undefined
      ? []
      : await loadDiscovered(await discoverGlobalHooks(location.globalHooksDir), deps, warnings);
  const modules = new Map<string, readonly LoadedHook[]>();
  for (const module of tree.modules)
    modules.set(module.name, await loadDiscovered(await discoverModuleHooks(module), deps, warnings));
  return { ...location, tree, schemas, hooks: { global, modules }, warnings };
}

/** What the values store takes from a prepared tree. */
export function treeValues(prepared: Pick<PreparedTree, 'tree' | 'schemas'>): ValuesStoreModules {
  return {
    statics: prepared.tree.statics,
    modules: prepared.tree.modules.map((module) => module.name),
    schemas: prepared.schemas,
  };
}

async function loadDiscovered(
  discovery: HookDiscovery,
  deps: PrepareTreeDeps,
  warnings: string[],
): Promise<LoadedHook[]> {
  const loaded = await loadHooks(discovery.hooks, deps.runDeps, deps.jq);
  warnings.push(...discovery.warnings, ...loaded.warnings);
  return loaded.hooks;
}
