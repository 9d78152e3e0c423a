import { deepEqual, type JsonValue } from './json.ts';
import type { ConfigValues } from './values.ts';

/**
 * What a ConfigMap change changed (docs/lifecycle.md step 16): the global section or an `*Enabled` flag →
 * reload all modules; only module sections → run those modules.
 */
export interface ConfigChange {
  readonly globalChanged: boolean;
  /** Module values keys whose `<key>Enabled` flag was set, cleared or flipped, sorted. */
  readonly enabledChanged: readonly string[];
  /** Module values keys whose section changed, sorted. */
  readonly modulesChanged: readonly string[];
}

/**
 * Compares two parsed configs section by section. An absent section counts as an empty map, as
 * the values store reads it; an absent `*Enabled` flag differs from `false`, because it lets the
 * values.yaml files decide.
 */
export function classifyConfigChange(before: ConfigValues, after: ConfigValues): ConfigChange {
  return {
    globalChanged: !deepEqual(before.global ?? {}, after.global ?? {}),
    enabledChanged: unionKeys(before.enabled, after.enabled).filter(
      (key) => before.enabled.get(key) !== after.enabled.get(key),
    ),
    modulesChanged: unionKeys(before.modules, after.modules).filter(
      (key) => !deepEqual(sectionOrEmpty(before, key), sectionOrEmpty(after, key)),
    ),
  };
}

/** True when the change asks for any work at all. */
export function isConfigChanged(change: ConfigChange): boolean {
  return change.globalChanged || change.enabledChanged.length > 0 || change.modulesChanged.length > 0;
}

function sectionOrEmpty(config: ConfigValues, key: string): JsonValue {
  return config.modules.get(key) ?? {};
}

function unionKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort();
}
