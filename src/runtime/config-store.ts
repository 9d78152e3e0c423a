import type { JsonValue } from '../core/json.ts';
import type { ConfigValues } from '../core/values.ts';

/**
 * Where config values live (docs/values.md "The ConfigMap"): the ConfigMap in the cluster,
 * or a file for a local run. The values store reads it and writes back the sections that hooks'
 * config values patches change.
 */
export interface ConfigStore {
  /** The current config values; an absent ConfigMap or file is empty config. */
  load(): Promise<ConfigValues>;
  /**
   * Persists one section (`global` or a module's values key) as the ConfigMap holds it: a YAML
   * string under that key. Other keys are left as they are.
   */
  saveSection(key: string, section: JsonValue): Promise<void>;
}
