import path from 'node:path';
import { moduleOwner } from '../../core/values.ts';
import { formatGoJson } from '../../hooks/binding-context-json.ts';
import { runEnabledScript } from '../../hooks/run-enabled-script.ts';
import { EnabledScriptError } from '../prepare-values.ts';
import type { OperatorContext } from './operator-context.ts';

/** Seed 001 step 4: the lists of modules to run, to delete and to purge. */
export interface ModuleDiscovery {
  readonly enabled: readonly string[];
  readonly disabled: readonly string[];
}

/** The merged enabled flag, then the module's `enabled` script; a failing script throws (retried). */
export async function discoverModules(ctx: OperatorContext): Promise<ModuleDiscovery> {
  const enabled: string[] = [];
  for (const module of ctx.tree.modules) {
    if (!ctx.store.isEnabledByValues(module.name)) continue;
    const owner = moduleOwner(module.name);
    const result = await runEnabledScript(
      {
        moduleName: module.name,
        path: path.join(module.dir, 'enabled'),
        valuesJson: formatGoJson(ctx.store.valuesView(owner, enabled)),
        configValuesJson: formatGoJson(ctx.store.configView(owner)),
      },
      ctx.runDeps,
    );
    if (result.outcome === 'failed') throw new EnabledScriptError(module.name, result.error);
    if (result.enabled) enabled.push(module.name);
  }
  const disabled = ctx.state.enabledModules.filter((name) => !enabled.includes(name));
  return { enabled, disabled };
}
