import { isStuckState } from '../helm/recover-release.ts';
import type { ReleaseRecord } from './release-record.ts';

/**
 * The revision an upgrade goes on from (helm's upgrade): the newest when it is deployed, else the
 * newest deployed one, else the newest failed or superseded one.
 */
export function currentRevision(history: readonly ReleaseRecord[]): ReleaseRecord | undefined {
  const last = history.at(-1);
  if (last === undefined || last.info.status === 'deployed') return last;
  const deployed = history.filter((record) => record.info.status === 'deployed').at(-1);
  return deployed ?? (['failed', 'superseded'].includes(last.info.status) ? last : undefined);
}

/** Whether an operation is under way (or was left so by a crash): helm refuses to start another. */
export function isPending(history: readonly ReleaseRecord[]): boolean {
  const last = history.at(-1);
  return last !== undefined && isStuckState(last.info.status);
}

/**
 * The revisions helm's storage removes before it writes a new one when HELM_HISTORY_MAX is `max`:
 * the oldest, until `max - 1` are left, never the newest deployed one; 0 keeps all.
 */
export function revisionsToTrim(history: readonly ReleaseRecord[], max: number): ReleaseRecord[] {
  if (max <= 0 || history.length <= max - 1) return [];
  const deployed = history.filter((record) => record.info.status === 'deployed').at(-1);
  const trimmed: ReleaseRecord[] = [];
  for (const record of history) {
    if (history.length - trimmed.length <= max - 1) break;
    if (record.version !== deployed?.version) trimmed.push(record);
  }
  return trimmed;
}
