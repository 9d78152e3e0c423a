const FIRST_DELAY_MS = 5_000;
const MAX_DELAY_MS = 30_000;

/**
 * The delay before retrying a task that has failed `failures` times (1 or more): "an exponentially growing
 * delay (from 5s to 30s)" (docs/lifecycle.md "Tasks and queues"), doubling from 5 s and capped at 30 s: 5,
 * 10, 20, 30, 30, … s. addon-operator's documentation wins over shell-operator's code, which starts at 5 s,
 * adds 2^(n-1) s and a random jitter, and caps at 32 s (docs/lifecycle.md "Tasks and queues" DIVERGENCE). No
 * jitter: each queue retries one task, so there is no herd to spread.
 */
export function failureBackoffMs(failures: number): number {
  const exponent = Math.max(failures, 1) - 1;
  return Math.min(FIRST_DELAY_MS * 2 ** Math.min(exponent, 16), MAX_DELAY_MS);
}
