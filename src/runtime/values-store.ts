import { createHash } from 'node:crypto';
import { deepClone, deepEqual, type JsonObject, type JsonValue } from '../core/json.ts';
import { PathWriters, valueAtPointer, valueOrigins, type ValueOrigin } from '../core/values-origin.ts';
import { moduleValuesKey } from '../core/module-name.ts';
import {
  configSection,
  GLOBAL_OWNER,
  isEnabledByValues,
  moduleOwner,
  ownerValuesKey,
  withConfigSection,
  type ConfigValues,
  type StaticValues,
  type ValuesOwner,
} from '../core/values.ts';
import { applyValuesPatch, compactValuesPatch } from '../core/values-patch-apply.ts';
import { scopeValuesPatch, type EnabledFlagPatch, type ValuesPatch } from '../core/values-patch.ts';
import { ValuesSchemas } from '../core/values-schema.ts';
import type { ModuleValuesSource } from './build/render-tree.ts';
import type { ConfigStore } from './config-store.ts';
import { valuesView } from '../core/values-view.ts';
import { asMap, configLayer, mergedSection, valueLayers, type OwnerLayers } from './values-store-layers.ts';

export interface ValuesStoreInit {
  readonly statics: StaticValues;
  /** Module names, in module order. */
  readonly modules: readonly string[];
  /** Schemas of global values and by module name; an owner without an entry has none. */
  readonly schemas?: { readonly global: ValuesSchemas; readonly modules: ReadonlyMap<string, ValuesSchemas> };
  readonly configStore: ConfigStore;
  /** Learns the values the schemas mark secret, each time a view of them is made (docs/values.md "Secret values"). */
  readonly secrets?: { add(value: string): void } | undefined;
}

/** The part of the store a modules tree gives: its values files, its modules and their schemas. */
export type ValuesStoreModules = Pick<ValuesStoreInit, 'statics' | 'modules' | 'schemas'>;

/** What a hook run or a config reload changed (docs/lifecycle.md steps 13, 14 and 16). */
export interface ValuesChanges {
  /** Global values changed: reload all modules. */
  readonly global: boolean;
  /** Modules whose values changed, in module order: run each again. */
  readonly modules: readonly string[];
  /** Modules whose enabled flag from values changed (config or a global hook): reload all modules. */
  readonly enabled: readonly string[];
}

/** A hook's two patch files, parsed (see parseValuesPatch). */
export interface HookPatches {
  readonly configPatch?: ValuesPatch;
  readonly valuesPatch?: ValuesPatch;
}

interface State {
  readonly config: ConfigValues;
  /** Stored values patches by owner values key. */
  readonly patches: ReadonlyMap<string, ValuesPatch>;
  /** `<module>Enabled` flags set by global hooks, by module values key. */
  readonly dynamic: ReadonlyMap<string, boolean>;
  /** Merged values by owner values key. */
  readonly values: ReadonlyMap<string, JsonValue>;
}

/**
 * The values storage of docs/values.md: static values, config values from a ConfigStore, schema
 * defaults and the values patches hooks returned, merged per owner. Every change is computed
 * into a new state and checked before it replaces the old one, so a failed hook run or a bad
 * config leaves every layer exactly as it was.
 */
export class ValuesStore {
  #init: ValuesStoreInit;
  #layers: ReadonlyMap<string, OwnerLayers>;
  #state: State;
  #tail: Promise<unknown> = Promise.resolve();
  /**
   * By owner values key: the hook whose values patch last wrote each path, for valueOrigins
   * (docs/values.md "Where a value came from"); changed only with a change that was kept.
   */
  readonly #writers = new Map<string, PathWriters>();

  private constructor(init: ValuesStoreInit, config: ConfigValues) {
    this.#init = init;
    this.#layers = ownerLayers(init);
    const empty: State = { config, patches: new Map(), dynamic: new Map(), values: new Map() };
    this.#state = this.#withConfig(empty, config);
  }

  /** Loads config values and checks them; fails as addon-operator stops on invalid config at startup. */
  static async open(init: ValuesStoreInit): Promise<ValuesStore> {
    return new ValuesStore(init, await init.configStore.load());
  }

  /**
   * A token that is the same object for as long as no values change: every change makes a new state,
   * so what was computed from the values (a render of the tree) can be kept while it is the same.
   */
  get revision(): object {
    return this.#state;
  }

  /** Merged global values. */
  globalValues(): JsonObject {
    return deepClone(asMap(this.#state.values.get('global')));
  }

  /** A module's merged values. */
  moduleValues(name: string): JsonValue {
    return deepClone(this.#section(moduleOwner(name)));
  }

  /** A module's merged values with those its schemas mark `x-kaddon-secret` replaced (docs/values.md "Secret values"). */
  moduleValuesWithoutSecrets(name: string, replacement: string): JsonValue {
    const owner = moduleOwner(name);
    return this.#schemas(owner).withoutSecrets(deepClone(this.#section(owner)), replacement);
  }

  /**
   * `$VALUES_PATH` (docs/values.md "Values in hooks, enabled scripts and charts"): `{global}` for a global
   * hook; `{global, <moduleKey>}` for a module hook, an enabled script or `$(var)` expansion, with
   * `global.enabledModules` when given (all enabled modules for hooks, the ones enabled before this module
   * for its enabled script).
   */
  valuesView(owner: ValuesOwner, enabledModules?: readonly string[]): JsonObject {
    const global = this.globalValues();
    const section = deepClone(this.#section(owner));
    this.#learnSecrets(GLOBAL_OWNER, global);
    if (owner.kind !== 'global') this.#learnSecrets(owner, section);
    return valuesView(owner, global, section, enabledModules);
  }

  /**
   * The views a render of the enabled modules reads (`valuesView` with `global.enabledModules`), each
   * with a key that is equal while its view is: the operator's ModuleLoadCache compares keys, and
   * printing 1,000 views that each list 1,000 enabled modules took longer than composing one
   * module (docs/performance.md "Native delivery engine"). The global part is printed and digested
   * once per state.
   */
  renderViews(enabledModules: readonly string[]): Required<ModuleValuesSource> {
    let printed: { readonly state: State; readonly key: string } | undefined;
    const globalKey = (): string => {
      if (printed?.state !== this.#state) {
        // A digest: the whole text in each module's key made every comparison copy it.
        const text = JSON.stringify([this.#state.values.get('global') ?? null, enabledModules]);
        printed = { state: this.#state, key: createHash('sha256').update(text).digest('base64') };
      }
      return printed.key;
    };
    return {
      enabledModules,
      viewFor: (name) => this.valuesView(moduleOwner(name), enabledModules),
      viewKeyFor: (name) => `${globalKey()}\u0000${JSON.stringify(this.#section(moduleOwner(name)) ?? null)}`,
    };
  }

  #learnSecrets(owner: ValuesOwner, section: JsonValue): void {
    const secrets = this.#init.secrets;
    if (secrets === undefined) return;
    for (const value of this.#schemas(owner).secretValues(section)) secrets.add(value);
  }

  /** `$CONFIG_VALUES_PATH`: config values only, `{global}` or `{global, <moduleKey>}`. */
  configView(owner: ValuesOwner): JsonObject {
    const global = deepClone(configSection(this.#state.config, GLOBAL_OWNER));
    return valuesView(owner, global, deepClone(configSection(this.#state.config, owner)));
  }

  /**
   * The values a module's release is rendered with: `{global, <moduleKey>}` without enabledModules
   * (docs/values.md "Values in hooks, enabled scripts and charts"), checked first against the global and the
   * module's values schema with `x-required-for-helm` merged into `required`.
   */
  helmValues(name: string): JsonObject {
    const view = this.valuesView(moduleOwner(name));
    this.#schemas(GLOBAL_OWNER).validate('helm', view.global ?? {});
    this.#schemas(moduleOwner(name)).validate('helm', view[moduleValuesKey(name)] ?? {});
    return view;
  }

  /** The module's enabled flag from values.yaml files, global hooks and config values. */
  isEnabledByValues(name: string): boolean {
    return isEnabledByValues(name, this.#init.statics, this.#state.config, this.#state.dynamic);
  }

  /**
   * Applies what a hook returned (docs/values.md "Patches from hooks"): the config values patch is checked
   * against the config values schema and persisted; the values patch is kept in memory; the
   * merged values are checked against the values schema. Any failure throws and changes nothing.
   */
  applyHookPatches(
    owner: ValuesOwner,
    patches: HookPatches,
    hook: string,
    /** Which run of the hook returned them, for "Where a value came from": its binding and when it ran. */
    run?: { readonly binding: string; readonly at: Date },
  ): Promise<ValuesChanges> {
    return this.#serialize(async () => {
      const before = this.#state;
      const key = ownerValuesKey(owner);
      const dynamic = new Map(before.dynamic);
      const config = this.#patchConfig(before.config, owner, patches.configPatch, hook, dynamic);
      const { section, stored } = this.#patchValues(
        before,
        config,
        owner,
        patches.valuesPatch,
        hook,
        dynamic,
      );
      if (!deepEqual(section, before.values.get(key)))
        this.#ownerLayers(owner).schemas.validate('values', section);
      if (config !== before.config)
        await this.#init.configStore.saveSection(key, configSection(config, owner));
      this.#state = {
        config,
        dynamic,
        patches: new Map(before.patches).set(key, stored),
        values: new Map(before.values).set(key, section),
      };
      const writer =
        run === undefined
          ? `hook '${hook}'`
          : `hook '${hook}', its ${run.binding} run at ${run.at.toISOString()}`;
      this.#recordWriters(key, patches.valuesPatch, writer);
      return this.#changes(before, this.#state);
    });
  }

  /** Config values with the hook's config patch applied and checked; the same object if unchanged. */
  #patchConfig(
    config: ConfigValues,
    owner: ValuesOwner,
    patch: ValuesPatch | undefined,
    hook: string,
    dynamic: Map<string, boolean>,
  ): ConfigValues {
    if (!patch) return config;
    const scoped = scopeValuesPatch(patch, owner, { hook, kind: 'config' });
    setFlags(dynamic, scoped.enabled);
    const key = ownerValuesKey(owner);
    const section = configSection(config, owner);
    const source = { hook, kind: 'config' } as const;
    const next = applyValuesPatch({ [key]: section }, scoped.values, { source })[key] ?? {};
    if (deepEqual(next, section)) return config;
    const layers = this.#ownerLayers(owner);
    layers.schemas.validate('config', configLayer(layers, next));
    return withConfigSection(config, owner, next);
  }

  /** The owner's values over `config` with the hook's values patch applied, and the patches to keep. */
  #patchValues(
    before: State,
    config: ConfigValues,
    owner: ValuesOwner,
    patch: ValuesPatch | undefined,
    hook: string,
    dynamic: Map<string, boolean>,
  ): { section: JsonValue; stored: ValuesPatch } {
    const key = ownerValuesKey(owner);
    const stored = before.patches.get(key) ?? [];
    const current =
      config === before.config
        ? this.#section(owner)
        : mergedSection(this.#ownerLayers(owner), config, stored);
    if (!patch) return { section: current, stored };
    const scoped = scopeValuesPatch(patch, owner, { hook, kind: 'values' });
    setFlags(dynamic, scoped.enabled);
    const source = { hook, kind: 'values' } as const;
    const section = applyValuesPatch({ [key]: current }, scoped.values, { source })[key] ?? {};
    return { section, stored: compactValuesPatch(stored, scoped.values) };
  }

  /** The paths under `key` that the hook's values patch wrote. */
  #recordWriters(key: string, patch: ValuesPatch | undefined, hook: string): void {
    if (patch === undefined || patch.length === 0) return;
    let writers = this.#writers.get(key);
    if (writers === undefined) {
      writers = new PathWriters();
      this.#writers.set(key, writers);
    }
    const prefix = `/${key}`;
    for (const operation of patch)
      if (operation.path === prefix || operation.path.startsWith(`${prefix}/`))
        writers.write(operation.path.slice(prefix.length), hook);
  }

  /**
   * Each leaf of the owner's values with the layer that set it (docs/values.md "Where a value came
   * from"): the root values.yaml, the module's values.yaml, a schema's defaults, the ConfigMap, or
   * the hook whose values patch wrote it last. With `replacement`, values its schemas mark secret
   * are replaced by it.
   */
  valueOrigins(owner: ValuesOwner, replacement?: string): ValueOrigin[] {
    const layers = this.#ownerLayers(owner);
    const key = ownerValuesKey(owner);
    const origins = valueOrigins(valueLayers(layers, this.#state.config, this.#section(owner)));
    const writers = this.#writers.get(key);
    const shown =
      replacement === undefined
        ? this.#section(owner)
        : layers.schemas.withoutSecrets(deepClone(this.#section(owner)), replacement);
    return origins.map((origin) => ({
      ...origin,
      value: valueAtPointer(shown, origin.path) ?? origin.value,
      origin: origin.origin === 'hooks' ? hookOf(writers, origin.path) : origin.origin,
    }));
  }

  /**
   * Reads config values again (the ConfigMap or file changed: docs/lifecycle.md step 16), checks them
   * and recomputes every owner's values. On invalid config it throws and keeps the old values.
   * `known`: config values already read (and checked with checkConfig) by a watch.
   */
  reloadConfig(known?: ConfigValues): Promise<ValuesChanges> {
    return this.#serialize(async () => {
      const config = known ?? (await this.#init.configStore.load());
      const before = this.#state;
      const after = this.#withConfig(before, config);
      this.#state = after;
      return this.#changes(before, after);
    });
  }

  /** Throws as reloadConfig would on `config` (schemas), changing nothing: a dry check for a watch. */
  checkConfig(config: ConfigValues): void {
    this.#withConfig(this.#state, config);
  }

  /**
   * A new modules tree (GitOps): its values files, module list and schemas replace the old ones;
   * config values and the values patches of the owners that remain are kept. Throws as
   * checkModules does and then changes nothing.
   */
  replaceModules(modules: ValuesStoreModules): Promise<void> {
    return this.#serialize(() => {
      const next = this.#withModules(modules);
      this.#init = next.init;
      this.#layers = next.layers;
      this.#state = next.state;
      return Promise.resolve();
    });
  }

  /**
   * Throws when a new modules tree cannot be used with the config values of now: config values
   * break a config schema, or merged values (values files, defaults, kept patches) break a values
   * schema, for global or a module enabled by values. Changes nothing.
   */
  checkModules(modules: ValuesStoreModules): void {
    this.#withModules(modules);
  }

  #withModules(modules: ValuesStoreModules): {
    init: ValuesStoreInit;
    layers: ReadonlyMap<string, OwnerLayers>;
    state: State;
  } {
    const init = { ...this.#init, ...modules };
    const layers = ownerLayers(init);
    const patches = new Map([...this.#state.patches].filter(([key]) => layers.has(key)));
    const state = withConfigOver(layers, init.statics, { ...this.#state, patches }, this.#state.config);
    for (const [key, { owner, schemas }] of layers)
      if (owner.kind === 'global' || isEnabledByValues(owner.name, init.statics, state.config, state.dynamic))
        schemas.validate('values', state.values.get(key) ?? {});
    return { init, layers, state };
  }

  /**
   * ModuleDelete (docs/lifecycle.md "Helm delivery", addon-operator's ResetState): the values patches the
   * module's hooks left are dropped, so a module enabled again starts from its static and config values.
   */
  resetModule(name: string): Promise<void> {
    return this.#serialize(() => {
      const key = moduleValuesKey(name);
      const before = this.#state;
      if (!before.patches.has(key)) return Promise.resolve();
      const patches = new Map(before.patches);
      patches.delete(key);
      const values = new Map(before.values);
      values.set(key, mergedSection(this.#ownerLayers(moduleOwner(name)), before.config, []));
      this.#writers.delete(key);
      this.#state = { ...before, patches, values };
      return Promise.resolve();
    });
  }

  /** The values patch kept in memory from an owner's hook runs, compacted. */
  patches(owner: ValuesOwner): ValuesPatch {
    return structuredClone(this.#state.patches.get(ownerValuesKey(owner)) ?? []);
  }

  /**
   * Takes values patches kept elsewhere as the owner's stored patches (`kaddon diff`: those a
   * release recorded at its delivery, docs/drift.md "What diff compares"), replayed over the static
   * and config values of now as the operator replays its own. Throws, changing nothing, when they
   * reach outside the owner or the result breaks its values schema.
   */
  restorePatches(owner: ValuesOwner, patch: ValuesPatch): Promise<void> {
    return this.#serialize(() => {
      const key = ownerValuesKey(owner);
      const layers = this.#ownerLayers(owner);
      const scoped = scopeValuesPatch(patch, owner, { kind: 'values' }).values;
      const section = mergedSection(layers, this.#state.config, scoped);
      layers.schemas.validate('values', section);
      this.#state = {
        ...this.#state,
        patches: new Map(this.#state.patches).set(key, scoped),
        values: new Map(this.#state.values).set(key, section),
      };
      return Promise.resolve();
    });
  }

  /** See withConfigOver. */
  #withConfig(state: State, config: ConfigValues): State {
    return withConfigOver(this.#layers, this.#init.statics, state, config);
  }

  #changes(before: State, after: State): ValuesChanges {
    const changed = (key: string): boolean => !deepEqual(before.values.get(key), after.values.get(key));
    const enabled = (state: State, name: string): boolean =>
      isEnabledByValues(name, this.#init.statics, state.config, state.dynamic);
    return {
      global: changed('global'),
      modules: this.#init.modules.filter((name) => changed(moduleValuesKey(name))),
      enabled: this.#init.modules.filter((name) => enabled(before, name) !== enabled(after, name)),
    };
  }

  #section(owner: ValuesOwner): JsonValue {
    const section = this.#state.values.get(ownerValuesKey(owner));
    if (section === undefined)
      throw new TypeError(`no values for ${ownerValuesKey(owner)}: not a module of this store`);
    return section;
  }

  #ownerLayers(owner: ValuesOwner): OwnerLayers {
    const layers = this.#layers.get(ownerValuesKey(owner));
    if (!layers) throw new TypeError(`no values for ${ownerValuesKey(owner)}: not a module of this store`);
    return layers;
  }

  #schemas(owner: ValuesOwner): ValuesSchemas {
    return schemasOf(this.#init, owner);
  }

  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

function schemasOf(init: ValuesStoreInit, owner: ValuesOwner): ValuesSchemas {
  const schemas = owner.kind === 'global' ? init.schemas?.global : init.schemas?.modules.get(owner.name);
  return schemas ?? new ValuesSchemas(owner);
}

/** The layers of global and of every module, by owner values key. */
function ownerLayers(init: ValuesStoreInit): ReadonlyMap<string, OwnerLayers> {
  const owners = [GLOBAL_OWNER, ...init.modules.map(moduleOwner)];
  return new Map(
    owners.map((owner) => [
      ownerValuesKey(owner),
      { owner, statics: init.statics, schemas: schemasOf(init, owner) },
    ]),
  );
}

/**
 * A state over new config values, with every owner recomputed. Config values of global and
 * of each module enabled by values are checked; a disabled module's are not, as in
 * addon-operator.
 */
function withConfigOver(
  layers: ReadonlyMap<string, OwnerLayers>,
  statics: StaticValues,
  state: State,
  config: ConfigValues,
): State {
  const values = new Map<string, JsonValue>();
  for (const [key, owned] of layers) {
    const { owner } = owned;
    const section = configSection(config, owner);
    if (owner.kind === 'global' || isEnabledByValues(owner.name, statics, config, state.dynamic))
      validateConfigSection(owned, section);
    values.set(key, mergedOnce(owned, config, section, state.patches.get(key) ?? NO_PATCHES));
  }
  return { ...state, config, values };
}

/**
 * What each owner's config section was last checked and merged as. A ConfigMap edit changes one
 * module's section; the operator checks the edit (checkConfig) and then applies it (reloadConfig),
 * and both did the schema checks and merges of every owner again: at 1,000 modules, more than the
 * render of the module that changed (docs/performance.md "Native delivery engine"). Both are pure
 * functions of the owner's layers and section (and stored patches), so an equal section reuses them.
 */
const lastChecked = new WeakMap<OwnerLayers, JsonValue>();
const NO_PATCHES: ValuesPatch = [];
const lastMerged = new WeakMap<
  OwnerLayers,
  { readonly section: JsonValue; readonly patches: ValuesPatch; readonly merged: JsonValue }
>();

function validateConfigSection(owned: OwnerLayers, section: JsonValue): void {
  const checked = lastChecked.get(owned);
  if (checked !== undefined && deepEqual(checked, section)) return;
  owned.schemas.validate('config', configLayer(owned, section));
  lastChecked.set(owned, section);
}

function mergedOnce(
  owned: OwnerLayers,
  config: ConfigValues,
  section: JsonValue,
  patches: ValuesPatch,
): JsonValue {
  const last = lastMerged.get(owned);
  if (last !== undefined && last.patches === patches && deepEqual(last.section, section)) return last.merged;
  const merged = mergedSection(owned, config, patches);
  lastMerged.set(owned, { section, patches, merged });
  return merged;
}

function setFlags(dynamic: Map<string, boolean>, flags: readonly EnabledFlagPatch[]): void {
  for (const flag of flags) {
    if (flag.enabled === undefined) dynamic.delete(flag.moduleKey);
    else dynamic.set(flag.moduleKey, flag.enabled);
  }
}

/** The hook whose patch wrote the path last, or a path above it. */
function hookOf(writers: PathWriters | undefined, path: string): string {
  return writers?.writerOf(path) ?? 'a hook';
}
