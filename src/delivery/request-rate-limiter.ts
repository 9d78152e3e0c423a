import { sleep, systemClock, type Clock } from '../core/clock.ts';
import { TokenBucket } from '../core/token-bucket.ts';

/**
 * Requests to the API server paced as client-go paces them (KUBE_CLIENT_QPS, KUBE_CLIENT_BURST):
 * `burst` at once, then `qps` a second. Callers wait their turn in the order they asked.
 */
export class RequestRateLimiter {
  readonly #bucket: TokenBucket;
  readonly #clock: Clock;
  #queue: Promise<void> = Promise.resolve();

  constructor(qps: number, burst: number, clock: Clock = systemClock) {
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
        await sleep(this.#clock, delay, signal);
      }
      this.#bucket.take(this.#clock.now());
    });
    this.#queue = turn;
    return turn;
  }
}
