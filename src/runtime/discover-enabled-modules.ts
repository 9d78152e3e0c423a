import path from 'node:path';
import { KaddonError } from '../core/errors.ts';
import { moduleOwner } from '../core/values.ts';
import { formatGoJson } from '../hooks/binding-context-json.ts';
import type { HookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { runEnabledScript } from '../hooks/run/run-enabled-script.ts';
import type { ModulesTree } from '../loader/modules-tree.ts';
import type { ValuesStore } from './values-store.ts';

/** A module's `enabled` script that could not decide (docs/lifecycle.md step 4). */
class EnabledScriptError extends KaddonError {
  readonly code = 'enabled-script-failed';
  constructor(module: string, cause: KaddonError | undefined) {
    super(
      `module '${module}': the enabled script failed${cause ? `: ${cause.message.replace(/\.$/, '')}` : ''}.`,
      cause?.hint ?? 'Make the script write true or false to $MODULE_ENABLED_RESULT.',
      { cause },
    );
  }
}

/**
 * docs/lifecycle.md step 4: each module's merged enabled flag, then its `enabled` script when there is
 * one, which sees the modules enabled before it. A script that cannot decide throws.
 */
export async function discoverEnabledModules(
  tree: ModulesTree,
  store: ValuesStore,
  runDeps: HookRunDeps,
  timeoutMs?: number,
): Promise<string[]> {
  const enabled: string[] = [];
  for (const module of tree.modules) {
    if (!store.isEnabledByValues(module.name)) continue;
    const owner = moduleOwner(module.name);
    const result = await runEnabledScript(
      {
        moduleName: module.name,
        path: path.join(module.dir, 'enabled'),
        valuesJson: formatGoJson(store.valuesView(owner, enabled)),
        configValuesJson: formatGoJson(store.configView(owner)),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
      runDeps,
    );
    if (result.outcome === 'failed') throw new EnabledScriptError(module.name, result.error);
    if (result.enabled) enabled.push(module.name);
  }
  return enabled;
}
