import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less when the signal aborts; never rejects. Injected so unit tests need no clock. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_MAX_MS = 30_000;

/**
 * The pause before retry number `attempt` (1, 2, …): 0.5 s doubling up to 30 s, with "equal
 * jitter" (half fixed, half random) so that many watches failing together do not retry together.
 */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 16));
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** exponent);
  return Math.round(base / 2 + (random() * base) / 2);
}

export const realSleep: Sleep = async (ms, signal) => {
  if (signal.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => undefined);
};
