/** An exponential backoff: the first pause, doubled after each failure up to the longest. */
export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/**
 * The pause before retry number `failures` (1, 2, …), with "equal jitter" (half fixed, half
 * random) so that many clients failing together do not retry together.
 */
export function jitteredBackoffMs(failures: number, backoff: Backoff, random: () => number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** exponent);
  return Math.round(base / 2 + (random() * base) / 2);
}
