import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';
import { ownerValuesKey, type ValuesOwner } from './values.ts';

/**
 * What an owner sees of values or config values (docs/values.md "Values in hooks, enabled scripts
 * and charts"): `{global}` for the global owner; `{global, <moduleKey>: section}` for a module, with
 * `global.enabledModules` when given. The parts are used as they are: callers pass copies.
 */
export function valuesView(
  owner: ValuesOwner,
  global: JsonValue,
  section: JsonValue,
  enabledModules?: readonly string[],
): JsonObject {
  if (owner.kind === 'global') return { global };
  if (!enabledModules) return { global, [ownerValuesKey(owner)]: section };
  const withModules = { ...(isJsonObject(global) ? global : {}), enabledModules: [...enabledModules] };
  return { global: withModules, [ownerValuesKey(owner)]: section };
}
