import { setTimeout as delay } from 'node:timers/promises';

/** Time as the ConfigMap store sees it, injected so tests control backoff (STYLE.md). */
export interface ConfigMapClock {
  now(): number;
  /** Resolves after `ms`, or at once when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** In [0, 1): the jitter source. */
  random(): number;
}

export const SYSTEM_CLOCK: ConfigMapClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined),
  random: () => Math.random(),
};

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** Exponential backoff for the n-th failure in a row (n ≥ 1), never above maxMs, with 50 % jitter. */
export function backoffDelay(failures: number, backoff: Backoff, clock: ConfigMapClock): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(base * (0.5 + clock.random() / 2));
}
