/**
 * The wait before the next sync after `failures` failed ones in a row: the poll interval, doubled
 * per failure, never above `maxMs` (nor below the poll interval).
 */
export function nextSyncDelay(pollMs: number, failures: number, maxMs: number): number {
  if (failures <= 0) return pollMs;
  const cap = Math.max(pollMs, maxMs);
  return Math.min(cap, pollMs * 2 ** Math.min(failures, 30));
}
