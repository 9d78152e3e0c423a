/**
 * An exponential backoff: the first pause, doubled after each failure up to the longest. Every retry
 * in kaddon waits by one of these (docs/architecture.md "Where things live").
 */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  /**
   * "Equal jitter" (half fixed, half random), so that many clients failing together do not retry
   * together. Off where one worker retries one thing and there is no herd to spread.
   */
  readonly jitter: boolean;
}

/** The pause before retry number `failures` (1, 2, …); `random` in [0, 1) is used only with jitter. */
export function backoffDelayMs(
  failures: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** exponent);
  return backoff.jitter ? Math.round(base / 2 + (random() * base) / 2) : base;
}

/** List+watch loops: 0.5 s doubling to 30 s, jittered (client-go's reflector backs off alike). */
export const WATCH_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, jitter: true };

/**
 * A failed task: "an exponentially growing delay (from 5s to 30s)" (docs/lifecycle.md "Tasks and
 * queues"): 5, 10, 20, 30, 30, … s. addon-operator's documentation wins over shell-operator's code,
 * which adds a random jitter and caps at 32 s (docs/lifecycle.md "Tasks and queues" DIVERGENCE).
 */
export const TASK_RETRY_BACKOFF: Backoff = { initialMs: 5_000, maxMs: 30_000, jitter: false };

/**
 * The wait before the next Git sync after `failures` failed ones in a row: the poll interval, doubled
 * per failure, never above `maxMs` (nor below the poll interval).
 */
export function syncDelayMs(pollMs: number, failures: number, maxMs: number): number {
  if (failures <= 0) return pollMs;
  return backoffDelayMs(failures + 1, { initialMs: pollMs, maxMs: Math.max(pollMs, maxMs), jitter: false });
}
