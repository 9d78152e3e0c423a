import { discoverEnabledModules } from '../discover-enabled-modules.ts';
import type { OperatorContext } from './operator-context.ts';

/** Seed 001 step 4: the lists of modules to run, to delete and to purge. */
export interface ModuleDiscovery {
  readonly enabled: readonly string[];
  readonly disabled: readonly string[];
}

/** The merged enabled flag, then the module's `enabled` script; a failing script throws (retried). */
export async function discoverModules(ctx: OperatorContext): Promise<ModuleDiscovery> {
  const enabled = await discoverEnabledModules(ctx.tree, ctx.store, ctx.runDeps);
  const disabled = ctx.state.enabledModules.filter((name) => !enabled.includes(name));
  return { enabled, disabled };
}
