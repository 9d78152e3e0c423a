/**
 * Time as kaddon sees it: the queues, schedules, watches, the ConfigMap store, the Git source and the
 * API rate limiter all take one, so tests drive retries, backoff and ticks with a clock of their own
 * instead of waiting (docs/architecture.md "Where things live").
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fire` once after `delayMs`; the returned function cancels it. */
  setTimer(fire: () => void, delayMs: number): () => void;
  /** In [0, 1): the source of backoff jitter. */
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fire, delayMs) => {
    const timer = setTimeout(fire, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
  random: () => Math.random(),
};

/** Resolves after `ms` on the clock, or at once when `signal` aborts; never rejects. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => {
      cancel();
      resolve();
    };
    const cancel = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether `work` settles within `ms` on the clock: true as soon as it does, false once the time is
 * up (the work goes on; the caller stops waiting for it). The timer is cancelled either way.
 */
export async function settlesWithin(clock: Clock, work: Promise<unknown>, ms: number): Promise<boolean> {
  const done = new AbortController();
  const inTime = await Promise.race([work.then(() => true), sleep(clock, ms, done.signal).then(() => false)]);
  done.abort();
  return inTime;
}
