import type { JsonValue } from '../core/json.ts';
import { EMPTY_CONFIG_VALUES, withConfigSection, type ConfigValues } from '../core/values.ts';
import { GLOBAL_OWNER, moduleOwner } from '../core/values.ts';
import { moduleNameFromValuesKey } from '../core/module-name.ts';
import type { ConfigStore } from './config-store.ts';

/**
 * Config values held in memory: `kaddon build` reads them from --config-values and never writes
 * the user's file; config patches from hooks last for the build.
 */
export class MemoryConfigStore implements ConfigStore {
  #config: ConfigValues;

  constructor(config: ConfigValues = EMPTY_CONFIG_VALUES) {
    this.#config = config;
  }

  load(): Promise<ConfigValues> {
    return Promise.resolve(this.#config);
  }

  saveSection(key: string, section: JsonValue): Promise<void> {
    const owner = key === 'global' ? GLOBAL_OWNER : moduleOwner(moduleNameFromValuesKey(key));
    this.#config = withConfigSection(this.#config, owner, section);
    return Promise.resolve();
  }
}
