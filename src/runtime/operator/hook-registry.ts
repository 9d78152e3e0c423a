import path from 'node:path';
import { discoverGlobalHooks, discoverModuleHooks } from '../../hooks/discover-hooks.ts';
import type { OrderedBindingType } from '../../hooks/hook-config.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { ModulesTree } from '../../loader/modules-tree.ts';
import type { Logger } from '../../observability/logger.ts';
import { hooksWithBinding, loadHooks, type LoadedHook } from '../lifecycle-hooks.ts';

/** A hook's id for its bindings and tasks: `global/<name>` or `<module>/<name>`. */
export function hookId(module: string | undefined, hook: LoadedHook): string {
  return `${module ?? 'global'}/${hook.descriptor.name}`;
}

/**
 * The hooks of the tree with their `--config` loaded (docs/lifecycle.md step 1 input): global hooks at
 * start, a module's hooks the first time the module runs.
 */
export interface HookRegistryDeps {
  /** The tree at start; `replace` gives a new one. */
  readonly tree: ModulesTree;
  readonly runDeps: HookRunDeps;
  readonly jq: JqEngine;
  readonly logger: Logger;
  /** After the hooks of global (`undefined`) or a module are loaded: binding_count. */
  readonly onLoaded?: (module: string | undefined, hooks: readonly LoadedHook[]) => void;
}

/** Every hook of a tree, loaded: global ones and by module name. */
export interface TreeHooks {
  readonly global: readonly LoadedHook[];
  readonly modules: ReadonlyMap<string, readonly LoadedHook[]>;
}

export class HookRegistry {
  readonly #deps: HookRegistryDeps;
  #tree: ModulesTree;
  #global: readonly LoadedHook[] = [];
  readonly #modules = new Map<string, readonly LoadedHook[]>();

  constructor(deps: HookRegistryDeps) {
    this.#deps = deps;
    this.#tree = deps.tree;
  }

  /**
   * A new modules tree (GitOps): every hook is replaced at once by the hooks loaded (and checked)
   * from it, so a lookup sees the old hooks or the new ones, never a mix.
   */
  replace(tree: ModulesTree, hooks: TreeHooks): void {
    this.#tree = tree;
    this.#global = hooks.global;
    this.#modules.clear();
    this.#deps.onLoaded?.(undefined, hooks.global);
    for (const [module, loaded] of hooks.modules) {
      this.#modules.set(module, loaded);
      this.#deps.onLoaded?.(module, loaded);
    }
  }

  /** The hooks loaded so far: global ones, and those of each module that has run. */
  loaded(): TreeHooks {
    return { global: this.#global, modules: new Map(this.#modules) };
  }

  async loadGlobal(globalHooksDir: string | undefined): Promise<void> {
    if (!globalHooksDir) return;
    const discovery = await discoverGlobalHooks(path.resolve(globalHooksDir));
    const loaded = await loadHooks(discovery.hooks, this.#deps.runDeps, this.#deps.jq);
    this.#warn([...discovery.warnings, ...loaded.warnings]);
    this.#global = loaded.hooks;
    this.#deps.onLoaded?.(undefined, loaded.hooks);
  }

  global(binding: OrderedBindingType): LoadedHook[] {
    return hooksWithBinding(this.#global, binding);
  }

  /** Every global hook, whatever its bindings. */
  globalHooks(): readonly LoadedHook[] {
    return this.#global;
  }

  async module(name: string, binding: OrderedBindingType): Promise<LoadedHook[]> {
    return hooksWithBinding(await this.moduleHooks(name), binding);
  }

  /** Every hook of a module, loaded the first time. */
  async moduleHooks(name: string): Promise<readonly LoadedHook[]> {
    let hooks: readonly LoadedHook[] | undefined = this.#modules.get(name);
    if (!hooks) {
      const module = this.#tree.modules.find((candidate) => candidate.name === name);
      if (!module) return [];
      const discovery = await discoverModuleHooks({ name, dir: module.dir });
      const loaded = await loadHooks(discovery.hooks, this.#deps.runDeps, this.#deps.jq);
      this.#warn([...discovery.warnings, ...loaded.warnings]);
      hooks = loaded.hooks;
      this.#modules.set(name, hooks);
      this.#deps.onLoaded?.(name, hooks);
    }
    return hooks;
  }

  /** A loaded hook by the id hookId() gives it; undefined for a module not loaded yet. */
  byId(id: string): LoadedHook | undefined {
    const all = [
      ...this.#global.map((hook) => ({ hook, module: undefined })),
      ...[...this.#modules].flatMap(([module, hooks]) => hooks.map((hook) => ({ hook, module }))),
    ];
    return all.find(({ hook, module }) => hookId(module, hook) === id)?.hook;
  }

  #warn(warnings: readonly string[]): void {
    for (const warning of warnings) this.#deps.logger.info(`warning: ${warning}`);
  }
}
