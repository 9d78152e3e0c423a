/**
 * Time as the queues see it, injected so that tests drive retries and throttling with a manual
 * clock (STYLE.md "Time ... injected").
 */
export interface QueueClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fire` once after `delayMs`; the returned function cancels it. */
  setTimer(fire: () => void, delayMs: number): () => void;
}

export const systemQueueClock: QueueClock = {
  now: () => Date.now(),
  setTimer: (fire, delayMs) => {
    const timer = setTimeout(fire, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
};
