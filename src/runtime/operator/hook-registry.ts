import path from 'node:path';
import type { Snapshots } from '../../hooks/binding-context.ts';
import { discoverGlobalHooks, discoverModuleHooks } from '../../hooks/discover-hooks.ts';
import type { OrderedBindingType } from '../../hooks/hook-config.ts';
import type { HookRunDeps } from '../../hooks/run-hook-deps.ts';
import type { JqEngine } from '../../loader/jq-engine.ts';
import type { ModulesTree } from '../../loader/modules-tree.ts';
import type { Logger } from '../../observability/logger.ts';
import { hooksWithBinding, loadHooks, type LoadedHook } from '../lifecycle-hooks.ts';

/**
 * The hooks of the tree with their `--config` loaded (seed 001 step 1 input): global hooks at
 * start, a module's hooks the first time the module runs.
 */
export class HookRegistry {
  readonly #deps: { tree: ModulesTree; runDeps: HookRunDeps; jq: JqEngine; logger: Logger };
  #global: LoadedHook[] = [];
  readonly #modules = new Map<string, LoadedHook[]>();

  constructor(deps: { tree: ModulesTree; runDeps: HookRunDeps; jq: JqEngine; logger: Logger }) {
    this.#deps = deps;
  }

  async loadGlobal(globalHooksDir: string | undefined): Promise<void> {
    if (!globalHooksDir) return;
    const discovery = await discoverGlobalHooks(path.resolve(globalHooksDir));
    const loaded = await loadHooks(discovery.hooks, this.#deps.runDeps, this.#deps.jq);
    this.#warn([...discovery.warnings, ...loaded.warnings]);
    this.#global = loaded.hooks;
  }

  global(binding: OrderedBindingType): LoadedHook[] {
    return hooksWithBinding(this.#global, binding);
  }

  async module(name: string, binding: OrderedBindingType): Promise<LoadedHook[]> {
    let hooks = this.#modules.get(name);
    if (!hooks) {
      const module = this.#deps.tree.modules.find((candidate) => candidate.name === name);
      if (!module) return [];
      const discovery = await discoverModuleHooks({ name, dir: module.dir });
      const loaded = await loadHooks(discovery.hooks, this.#deps.runDeps, this.#deps.jq);
      this.#warn([...discovery.warnings, ...loaded.warnings]);
      hooks = loaded.hooks;
      this.#modules.set(name, hooks);
    }
    return hooksWithBinding(hooks, binding);
  }

  /** Kubernetes bindings are not monitored yet: every hook sees empty snapshots. */
  snapshots(hook: LoadedHook): Snapshots {
    return Object.fromEntries(hook.config.kubernetes.map((binding) => [binding.name, []]));
  }

  #warn(warnings: readonly string[]): void {
    for (const warning of warnings) this.#deps.logger.info(`warning: ${warning}`);
  }
}
