import { positiveDurationMs } from '../config/operator-config.ts';
import { findSetting } from '../config/setting-names.ts';
import { DEFAULT_JQ_TIMEOUT_MS } from '../jq/jq-engine.ts';

/** KADDON_JQ_TIMEOUT for `kaddon build` and `kaddon sync`, as `kaddon operator` reads it. */
export function jqTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  return positiveDurationMs(findSetting(env, 'jqTimeout'), DEFAULT_JQ_TIMEOUT_MS);
}
