import { KaddonError } from './errors.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from './json.ts';
import { isValidModuleName, moduleNameFromValuesKey, moduleValuesKey } from './module-name.ts';
import { parseYamlDocument } from './yaml/yaml.ts';

/** Values that break the values contract (docs/values.md), with the file and key to fix. */
export class ValuesError extends KaddonError {
  readonly code = 'values-invalid';
  readonly file: string;
  constructor(file: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`values '${file}': ${problem}.`, hint, options);
    this.file = file;
  }
}

/**
 * Deep merge as addon-operator layers values: maps merge key by key, anything else (lists,
 * scalars, null) in `override` replaces what `base` had.
 */
export function mergeValues(
  base: JsonValue | undefined,
  override: JsonValue | undefined,
): JsonValue | undefined {
  if (override === undefined) return base;
  if (!isJsonObject(base) || !isJsonObject(override)) return deepClone(override);
  const out: JsonObject = deepClone(base);
  for (const [key, value] of Object.entries(override)) {
    const merged = mergeValues(out[key], value);
    if (merged !== undefined) out[key] = merged;
  }
  return out;
}

/** The ConfigMap's layout (docs/values.md "The ConfigMap"), parsed. */
export interface ConfigValues {
  readonly global: JsonObject | undefined;
  /** Module sections by values key. */
  readonly modules: ReadonlyMap<string, JsonValue>;
  /** `<key>Enabled` flags by values key. */
  readonly enabled: ReadonlyMap<string, boolean>;
}

export const EMPTY_CONFIG_VALUES: ConfigValues = {
  global: undefined,
  modules: new Map(),
  enabled: new Map(),
};

/**
 * Reads config values in the ConfigMap's data layout: `global` and module sections are YAML
 * strings (or, in a file, YAML maps), `<module>Enabled` is "true" or "false".
 */
export function parseConfigValues(data: JsonValue | undefined, file: string): ConfigValues {
  if (data === undefined || data === null) return EMPTY_CONFIG_VALUES;
  if (!isJsonObject(data))
    throw new ValuesError(
      file,
      'config values must be a map',
      'Write global, <module> and <module>Enabled keys.',
    );
  const modules = new Map<string, JsonValue>();
  const enabled = new Map<string, boolean>();
  let global: JsonObject | undefined;
  for (const [key, raw] of Object.entries(data)) {
    const value = typeof raw === 'string' && !key.endsWith('Enabled') ? parseSection(raw, file, key) : raw;
    if (key === 'global') {
      if (value !== null && !isJsonObject(value)) throw sectionError(file, key);
      global = value ?? {};
    } else if (key.endsWith('Enabled')) {
      enabled.set(
        checkModuleKey(key.slice(0, -'Enabled'.length), file, key),
        parseEnabledFlag(value, file, key, true),
      );
    } else {
      if (!isJsonObject(value) && !Array.isArray(value)) throw sectionError(file, key);
      modules.set(checkModuleKey(key, file, key), value);
    }
  }
  return { global, modules, enabled };
}

function parseSection(text: string, file: string, key: string): JsonValue {
  try {
    return parseYamlDocument(text, `${file}#${key}`) ?? null;
  } catch (error: unknown) {
    throw new ValuesError(file, `section '${key}' is not valid YAML`, 'Fix the YAML inside the section.', {
      cause: error,
    });
  }
}

function sectionError(file: string, key: string): ValuesError {
  return new ValuesError(
    file,
    `section '${key}' must be a map or a list`,
    `Write '${key}' as a YAML map (or list) of values.`,
  );
}

function checkModuleKey(key: string, file: string, field: string): string {
  if (
    !isValidModuleName(moduleNameFromValuesKey(key)) ||
    moduleValuesKey(moduleNameFromValuesKey(key)) !== key
  ) {
    throw new ValuesError(
      file,
      `bad module name '${field}': should be camelCased`,
      'Module keys are the camelCase form of the kebab-case module name, e.g. echoServer for echo-server.',
    );
  }
  return key;
}

/** A `<module>Enabled` flag: a boolean, or (in config values) the strings "true" and "false". */
export function parseEnabledFlag(
  value: JsonValue | undefined,
  file: string,
  key: string,
  allowStrings: boolean,
): boolean {
  if (typeof value === 'boolean') return value;
  if (allowStrings && (value === 'true' || value === 'false')) return value === 'true';
  throw new ValuesError(
    file,
    `'${key}' must be true or false, not ${JSON.stringify(value ?? null)}`,
    `Set ${key}: true or ${key}: false.`,
  );
}

/** Static values of a modules tree: the root values.yaml files and each module's values.yaml. */
export interface StaticValues {
  /** `$MODULES_DIR/values.yaml` (merged over every modules directory, later ones winning). */
  readonly root: JsonObject;
  /** Each module's own values.yaml, by module name. */
  readonly modules: ReadonlyMap<string, JsonObject>;
  /** Values given on the command line (`build --values`), in the root layout, over both files. */
  readonly extra?: JsonObject;
}

/**
 * A module's merged enabled flag (docs/lifecycle.md step 4): false, then `<key>Enabled` from the root
 * values.yaml, from the module's values.yaml, then from config values; the last one set wins.
 * `dynamic` holds the flags global hooks set by values patches (by values key); as in
 * addon-operator's extender order they sit between the files and config values.
 */
export function isEnabledByValues(
  name: string,
  statics: StaticValues,
  config: ConfigValues,
  dynamic?: ReadonlyMap<string, boolean>,
): boolean {
  const key = moduleValuesKey(name);
  const flag = `${key}Enabled`;
  let enabled = false;
  for (const source of [statics.root, statics.modules.get(name) ?? {}, statics.extra ?? {}]) {
    const value = source[flag];
    if (typeof value === 'boolean') enabled = value;
  }
  return config.enabled.get(key) ?? dynamic?.get(key) ?? enabled;
}

/** Global values: the root values.yaml's `global`, then config values' `global` (docs/values.md). */
export function globalValues(statics: StaticValues, config: ConfigValues): JsonObject {
  const merged = mergeValues(
    mergeValues(mergeValues({}, statics.root.global), statics.extra?.global),
    config.global,
  );
  return isJsonObject(merged) ? merged : {};
}

/** A module's values: its section in the root values.yaml, its values.yaml, then config values. */
export function moduleValues(name: string, statics: StaticValues, config: ConfigValues): JsonValue {
  const key = moduleValuesKey(name);
  let merged = mergeValues({}, statics.root[key]);
  merged = mergeValues(merged, statics.modules.get(name)?.[key]);
  merged = mergeValues(merged, statics.extra?.[key]);
  merged = mergeValues(merged, config.modules.get(key));
  return merged ?? {};
}

/**
 * Reads a dotted path (`global.discovery.clusterDomain`) in a values view. Only the values' own keys
 * count: `__proto__`, `constructor` or `toString` name nothing unless the values have such a key.
 */
export function valueAtPath(view: JsonValue, dottedPath: string): JsonValue | undefined {
  let node: JsonValue | undefined = view;
  for (const part of dottedPath.split('.')) {
    if (Array.isArray(node) && /^\d+$/.test(part)) node = node[Number(part)];
    else if (isJsonObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/** Whose values: the global section or one module's (docs/values.md "Layers"). */
export type ValuesOwner = { readonly kind: 'global' } | { readonly kind: 'module'; readonly name: string };

export const GLOBAL_OWNER: ValuesOwner = { kind: 'global' };

export function moduleOwner(name: string): ValuesOwner {
  return { kind: 'module', name };
}

/** The owner's top-level key in values documents: `global` or the module's camelCase key. */
export function ownerValuesKey(owner: ValuesOwner): string {
  return owner.kind === 'global' ? 'global' : moduleValuesKey(owner.name);
}

/** The subject of a message about the owner's values: `global` or `module 'echo-server'`. */
export function describeOwner(owner: ValuesOwner): string {
  return owner.kind === 'global' ? 'global' : `module '${owner.name}'`;
}

/** The owner's section of config values; an absent section is an empty map. */
export function configSection(config: ConfigValues, owner: ValuesOwner): JsonValue {
  const section = owner.kind === 'global' ? config.global : config.modules.get(ownerValuesKey(owner));
  return section ?? {};
}

/** Config values with the owner's section replaced. */
export function withConfigSection(
  config: ConfigValues,
  owner: ValuesOwner,
  section: JsonValue,
): ConfigValues {
  if (owner.kind === 'global') {
    if (!isJsonObject(section)) throw new TypeError('the global section of config values must be a map');
    return { ...config, global: section };
  }
  return { ...config, modules: new Map(config.modules).set(ownerValuesKey(owner), section) };
}
