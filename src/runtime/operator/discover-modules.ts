import { discoverEnabledModules } from '../discover-enabled-modules.ts';
import type { OperatorContext } from './operator-context.ts';

/** docs/lifecycle.md step 4: the modules to run, in module order. */
export interface ModuleDiscovery {
  readonly enabled: readonly string[];
}

/** The merged enabled flag, then the module's `enabled` script; a failing script throws (retried). */
export async function discoverModules(ctx: OperatorContext): Promise<ModuleDiscovery> {
  return { enabled: await discoverEnabledModules(ctx.tree, ctx.store, ctx.runDeps, ctx.hookTimeoutMs) };
}
