import { findSetting } from '../config/setting-names.ts';
import { OperatorConfigError } from '../config/operator-config.ts';
import { parseGoDuration } from '../hooks/go-duration.ts';
import { DEFAULT_JQ_TIMEOUT_MS } from '../loader/jq-engine.ts';

/** KADDON_JQ_TIMEOUT for `kaddon build` and `kaddon sync`, as `kaddon operator` reads it. */
export function jqTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const found = findSetting(env, 'jqTimeout');
  if (!found) return DEFAULT_JQ_TIMEOUT_MS;
  const ms = parseGoDuration(found.value);
  if (ms === undefined || ms <= 0)
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not a positive duration`,
      'Write it like 10s or 1m.',
    );
  return ms;
}
