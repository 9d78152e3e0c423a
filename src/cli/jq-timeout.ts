import type { SettingReader } from '../config/setting-reader.ts';
import { DEFAULT_JQ_TIMEOUT_MS } from '../jq/jq-engine.ts';

/** KADDON_JQ_TIMEOUT for `kaddon build` and `kaddon sync`, as `kaddon operator` reads it. */
export function jqTimeoutMs(read: SettingReader): number {
  return read.durationMs('jqTimeout', DEFAULT_JQ_TIMEOUT_MS);
}
