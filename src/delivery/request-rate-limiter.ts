import { TokenBucket } from '../core/token-bucket.ts';

/** The clock and timer a limiter waits with; tests hand in their own. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const REAL_CLOCK: LimiterClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    }),
};

/**
 * Requests to the API server paced as client-go paces them (KUBE_CLIENT_QPS, KUBE_CLIENT_BURST):
 * `burst` at once, then `qps` a second. Callers wait their turn in the order they asked.
 */
export class RequestRateLimiter {
  readonly #bucket: TokenBucket;
  readonly #clock: LimiterClock;
  #queue: Promise<void> = Promise.resolve();

  constructor(qps: number, burst: number, clock: LimiterClock = REAL_CLOCK) {
    this.#clock = clock;
    this.#bucket = new TokenBucket({ intervalMs: 1000 / qps, burst: Math.max(burst, 1) }, clock.now());
  }

  /** Resolves when the caller may send; at once while tokens are left, or when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(async () => {
      for (;;) {
        if (signal?.aborted) return;
        const delay = this.#bucket.delayMs(this.#clock.now());
        if (delay === 0) break;
        await this.#clock.sleep(delay, signal);
      }
      this.#bucket.take(this.#clock.now());
    });
    this.#queue = turn;
    return turn;
  }
}
