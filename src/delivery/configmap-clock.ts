import { setTimeout as delay } from 'node:timers/promises';

/**
 * Time as the ConfigMap store sees it, injected so tests control backoff (docs/architecture.md "House
 * style").
 */
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
