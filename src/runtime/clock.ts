/**
 * Time as the runtime sees it (queues, schedules, the resource monitor), injected so that tests
 * drive retries, throttling and ticks with a manual clock (docs/architecture.md "House style").
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fire` once after `delayMs`; the returned function cancels it. */
  setTimer(fire: () => void, delayMs: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fire, delayMs) => {
    const timer = setTimeout(fire, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
};
