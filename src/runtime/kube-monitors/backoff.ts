import { setTimeout as delay } from 'node:timers/promises';
import type { Backoff } from '../../core/backoff.ts';

/** Waits `ms`, or less when the signal aborts; never rejects. Injected so unit tests need no clock. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** A failing watch retries after 0.5 s, doubling up to 30 s, jittered (jitteredBackoffMs). */
export const WATCH_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000 };

export const realSleep: Sleep = async (ms, signal) => {
  if (signal.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => undefined);
};
