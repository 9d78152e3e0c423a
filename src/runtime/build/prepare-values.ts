import { KaddonError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { GLOBAL_OWNER, moduleOwner } from '../../core/values.ts';
import path from 'node:path';
import type { ObjectAndFilterResult, Snapshots } from '../../hooks/binding-context.ts';
import { discoverGlobalHooks, discoverModuleHooks } from '../../hooks/discover-hooks.ts';
import type { OrderedBindingType } from '../../hooks/hook-config.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import { snapshotItem } from '../../hooks/binding-context.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { ModulesTree } from '../../loader/modules-tree.ts';
import {
  hooksWithBinding,
  loadHooks,
  runLifecycleHook,
  type LifecycleRun,
  type LoadedHook,
} from '../lifecycle-hooks.ts';
import { discoverEnabledModules } from '../discover-enabled-modules.ts';
import type { ModuleValuesSource } from './render-tree.ts';
import type { ValuesStore } from '../values-store.ts';

/** Objects given for hooks' kubernetes bindings: hook name → binding name → objects. */
export type SnapshotObjects = Readonly<Record<string, Readonly<Record<string, readonly JsonObject[]>>>>;

export interface PrepareValuesInput {
  readonly tree: ModulesTree;
  readonly store: ValuesStore;
  /** $GLOBAL_HOOKS_DIR; global hooks are in its `hooks/` folder. */
  readonly globalHooksDir: string | undefined;
  readonly runDeps: HookRunDeps;
  readonly jq: JqEngine;
  readonly snapshots: SnapshotObjects;
  readonly timeoutMs?: number;
}

/** Which modules are enabled, and the values each sees, from static values alone (no hooks run). */
export function staticValues(tree: ModulesTree, store: ValuesStore): ModuleValuesSource {
  const enabled = tree.modules.filter((module) => store.isEnabledByValues(module.name)).map((m) => m.name);
  return store.renderViews(enabled);
}

/**
 * The hooks that produce values before a render, in the order of docs/lifecycle.md: global onStartup
 * (step 1) and beforeAll (step 3), module discovery with `enabled` scripts (step 4), then for
 * each enabled module its onStartup and beforeHelm hooks (step 5). Kubernetes bindings are not
 * watched: snapshots are the objects given, or empty.
 */
export async function runValueHooks(
  input: PrepareValuesInput,
): Promise<ModuleValuesSource & { warnings: string[] }> {
  const warnings: string[] = [];
  const globalHooks = input.globalHooksDir ? await loadGlobalHooks(input, warnings) : [];
  const globalRun = lifecycleRun(input, GLOBAL_OWNER, undefined);
  await runBinding(globalHooks, 'onStartup', globalRun);
  await runBinding(globalHooks, 'beforeAll', globalRun);
  const enabled = await discoverEnabledModules(input.tree, input.store, input.runDeps, input.timeoutMs);
  for (const name of enabled) {
    const module = input.tree.modules.find((candidate) => candidate.name === name);
    if (!module) continue;
    const discovery = await discoverModuleHooks({ name, dir: module.dir });
    const loaded = await loadHooks(discovery.hooks, input.runDeps, input.jq);
    warnings.push(...discovery.warnings, ...loaded.warnings);
    const run = lifecycleRun(input, moduleOwner(name), enabled);
    await runBinding(loaded.hooks, 'onStartup', run);
    await runBinding(loaded.hooks, 'beforeHelm', run);
  }
  return {
    enabledModules: enabled,
    viewFor: (name) => input.store.valuesView(moduleOwner(name), enabled),
    warnings,
  };
}

async function loadGlobalHooks(input: PrepareValuesInput, warnings: string[]): Promise<LoadedHook[]> {
  const discovery = await discoverGlobalHooks(path.resolve(input.globalHooksDir ?? '.'));
  const loaded = await loadHooks(discovery.hooks, input.runDeps, input.jq);
  warnings.push(...discovery.warnings, ...loaded.warnings);
  return loaded.hooks;
}

async function runBinding(
  hooks: readonly LoadedHook[],
  binding: OrderedBindingType,
  run: LifecycleRun,
): Promise<void> {
  for (const hook of hooksWithBinding(hooks, binding)) await runLifecycleHook(hook, binding, run);
}

function lifecycleRun(
  input: PrepareValuesInput,
  owner: LifecycleRun['owner'],
  enabled: readonly string[] | undefined,
): LifecycleRun {
  return {
    store: input.store,
    owner,
    ...(enabled ? { enabledModules: enabled } : {}),
    snapshots: (hook) => snapshotsFor(hook, input),
    runDeps: input.runDeps,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  };
}

/** The given objects as the hook's snapshots: each through its binding's jqFilter. */
function snapshotsFor(hook: LoadedHook, input: PrepareValuesInput): Snapshots {
  const given = input.snapshots[hook.descriptor.name] ?? {};
  const out: Record<string, ObjectAndFilterResult[]> = {};
  for (const binding of hook.config.kubernetes) {
    out[binding.name] = (given[binding.name] ?? []).map((object) => {
      const outputs: JsonValue[] =
        binding.jqFilter === undefined
          ? []
          : input.jq.evaluate(
              binding.jqFilter,
              object,
              `hook '${hook.descriptor.name}' ${binding.name} jqFilter`,
            );
      return snapshotItem(binding, object, outputs);
    });
  }
  return out;
}

/** Reads a snapshots file's content: `{<hook>: {<binding>: [objects]}}`. */
export function parseSnapshotObjects(value: JsonValue | undefined, file: string): SnapshotObjects {
  const out: Record<string, Record<string, JsonObject[]>> = {};
  if (value === undefined || value === null) return out;
  if (!isJsonObject(value)) throw new SnapshotsFileError(file, 'the file must map hook names to bindings');
  for (const [hook, bindings] of Object.entries(value)) {
    if (!isJsonObject(bindings))
      throw new SnapshotsFileError(file, `'${hook}' must map binding names to lists of objects`);
    out[hook] = {};
    for (const [binding, objects] of Object.entries(bindings)) {
      if (!Array.isArray(objects) || !objects.every(isJsonObject)) {
        throw new SnapshotsFileError(file, `'${hook}.${binding}' must be a list of Kubernetes objects`);
      }
      out[hook][binding] = objects;
    }
  }
  return out;
}

class SnapshotsFileError extends KaddonError {
  readonly code = 'snapshots-invalid';
  constructor(file: string, problem: string) {
    super(`snapshots '${file}': ${problem}.`, 'Write {<hook name>: {<kubernetes binding name>: [objects]}}.');
  }
}
