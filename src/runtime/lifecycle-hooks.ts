import { KaddonError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import { parseValuesPatch } from '../core/values-patch.ts';
import type { ValuesOwner } from '../core/values.ts';
import {
  lifecycleContext,
  onStartupContext,
  type BindingContext,
  type Snapshots,
} from '../hooks/binding-context.ts';
import { formatBindingContexts, formatGoJson } from '../hooks/binding-context-json.ts';
import type { HookDescriptor } from '../hooks/discover-hooks.ts';
import type { HookConfig, OrderedBindingType } from '../hooks/hook-config.ts';
import { parseHookConfig } from '../hooks/config/parse-hook-config.ts';
import { runHookConfig } from '../hooks/run/run-hook-config.ts';
import type { HookRunDeps } from '../hooks/run/run-hook-deps.ts';
import type { HookError } from '../hooks/run/run-hook-error.ts';
import { runHook, type HookRunResult } from '../hooks/run/run-hook.ts';
import type { JqEngine } from '../jq/jq-engine.ts';
import type { ValuesChanges, ValuesStore } from './values-store.ts';

/** A discovered hook with the binding configuration it printed for `--config`. */
export interface LoadedHook {
  readonly descriptor: HookDescriptor;
  readonly config: HookConfig;
}

/** A hook run that failed; the values it would have changed are left as they were. */
class HookRunFailedError extends KaddonError {
  readonly code = 'hook-run-failed';
  constructor(hook: string, binding: string, cause: HookError | KaddonError) {
    super(`hook '${hook}': the ${binding} run failed: ${cause.message.replace(/\.$/, '')}.`, cause.hint, {
      cause,
    });
  }
}

/** A run reported as not ok without a reason; kept apart so it is never mistaken for success. */
class HookRunIncompleteError extends KaddonError {
  readonly code = 'hook-run-incomplete';
  constructor(hook: string) {
    super(`hook '${hook}': the run did not complete.`, 'Look at the hook output in the log.');
  }
}

/** Runs each hook with `--config` and parses what it prints (docs/hooks.md). */
export async function loadHooks(
  descriptors: readonly HookDescriptor[],
  runDeps: HookRunDeps,
  jq: JqEngine,
): Promise<{ hooks: LoadedHook[]; warnings: string[] }> {
  const hooks: LoadedHook[] = [];
  const warnings: string[] = [];
  for (const descriptor of descriptors) {
    const output = await runHookConfig({ name: descriptor.name, path: descriptor.path }, runDeps);
    const parsed = parseHookConfig(output, descriptor, { jq });
    hooks.push({ descriptor, config: parsed.config });
    warnings.push(...parsed.warnings);
  }
  return { hooks, warnings };
}

/** The hooks that declare `binding`, by ORDER then name (docs/hooks.md "Bindings": ORDER). */
export function hooksWithBinding(hooks: readonly LoadedHook[], binding: OrderedBindingType): LoadedHook[] {
  return hooks
    .filter((hook) => hook.config.order[binding] !== undefined)
    .sort(
      (a, b) =>
        (a.config.order[binding] ?? 0) - (b.config.order[binding] ?? 0) ||
        (a.descriptor.name < b.descriptor.name ? -1 : a.descriptor.name > b.descriptor.name ? 1 : 0),
    );
}

export interface LifecycleRun {
  readonly store: ValuesStore;
  readonly owner: ValuesOwner;
  /** For module hooks: every enabled module, for `global.enabledModules`. */
  readonly enabledModules?: readonly string[];
  /** Snapshots of the hook's kubernetes bindings, by binding name. */
  readonly snapshots: (hook: LoadedHook) => Snapshots;
  readonly runDeps: HookRunDeps;
  readonly timeoutMs?: number;
  /** Called after every run, failed or not, with its result and duration (metrics). */
  readonly onRun?: (hook: LoadedHook, label: string, result: HookRunResult, seconds: number) => void;
  /**
   * Applies what a hook wrote to $KUBERNETES_PATCH_PATH (the operator's ObjectPatcher). Absent offline
   * (`kaddon build --run-hooks`), where there is no cluster to change.
   */
  readonly applyObjectPatches?: (hook: string, text: string) => Promise<void>;
}

/**
 * One run of a hook for a lifecycle binding (docs/lifecycle.md steps 1, 3, 5, 6, 8): the binding context,
 * values and config values files in, the patch files back into the values store. A failed run or
 * a patch the store refuses throws and leaves the values as they were.
 */
export async function runLifecycleHook(
  hook: LoadedHook,
  binding: OrderedBindingType,
  run: LifecycleRun,
): Promise<ValuesChanges> {
  const context: BindingContext =
    binding === 'onStartup'
      ? onStartupContext()
      : lifecycleContext(hook.config, binding, run.snapshots(hook));
  return runHookWithContexts(hook, [context], binding, run);
}

/**
 * One run of a hook with the given binding contexts (a lifecycle binding, or the contexts of a
 * kubernetes or schedule task, docs/lifecycle.md steps 2, 9, 10): patches go into the values store as
 * runLifecycleHook describes. `label` names the run in errors.
 */
export async function runHookWithContexts(
  hook: LoadedHook,
  contexts: readonly BindingContext[],
  label: string,
  run: LifecycleRun,
): Promise<ValuesChanges> {
  const name = hook.descriptor.name;
  const values: JsonObject = run.store.valuesView(run.owner, run.enabledModules);
  const startedAt = performance.now();
  const ranAt = new Date();
  const result = await runHook(
    {
      name,
      path: hook.descriptor.path,
      bindingContextJson: formatBindingContexts(contexts),
      valuesJson: formatGoJson(values),
      configValuesJson: formatGoJson(run.store.configView(run.owner)),
      ...(run.timeoutMs === undefined ? {} : { timeoutMs: run.timeoutMs }),
    },
    run.runDeps,
  );
  run.onRun?.(hook, label, result, (performance.now() - startedAt) / 1000);
  if (!result.ok) {
    await applyObjectPatchesOfFailedRun(name, result.kubernetesPatchText, run);
    throw new HookRunFailedError(name, label, result.error ?? new HookRunIncompleteError(name));
  }
  try {
    const configPatch = parseValuesPatch(result.configPatchText, { hook: name, kind: 'config' });
    const valuesPatch = parseValuesPatch(result.valuesPatchText, { hook: name, kind: 'values' });
    const changes = await run.store.applyHookPatches(run.owner, { configPatch, valuesPatch }, name, {
      binding: label,
      at: ranAt,
    });
    if (result.kubernetesPatchText.trim() !== '')
      await run.applyObjectPatches?.(name, result.kubernetesPatchText);
    return changes;
  } catch (error: unknown) {
    if (error instanceof KaddonError) throw new HookRunFailedError(name, label, error);
    throw error;
  }
}

/**
 * A failed module hook's object operations are still applied, as addon-operator does (a hook may report
 * an object's status before it fails); a failed global hook's are not. The run's own failure is what the
 * caller reports, so a refused operation here is only logged.
 */
async function applyObjectPatchesOfFailedRun(hook: string, text: string, run: LifecycleRun): Promise<void> {
  if (run.owner.kind !== 'module' || text.trim() === '' || !run.applyObjectPatches) return;
  try {
    await run.applyObjectPatches(hook, text);
  } catch (error: unknown) {
    if (!(error instanceof KaddonError)) throw error;
    run.runDeps.logger.error('object operations of a failed hook run', { hook, error: error.message });
  }
}
