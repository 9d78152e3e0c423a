/** How many at once (`burst`) and how often after that (one every `intervalMs`). */
export interface RateLimit {
  readonly intervalMs: number;
  readonly burst: number;
}

/**
 * A bucket of `burst` tokens, refilled by one every `intervalMs`; each action takes one. It limits a
 * hook's execution rate (docs/hooks.md "Execution rate": while the bucket is empty the hook's next
 * task waits and events pile up behind it, to be combined into one run) and the requests kaddon sends
 * to the API server (KUBE_CLIENT_QPS and KUBE_CLIENT_BURST).
 */
export class TokenBucket {
  readonly #intervalMs: number;
  readonly #burst: number;
  #tokens: number;
  #updatedAt: number;

  constructor(limit: RateLimit, now: number) {
    this.#intervalMs = limit.intervalMs;
    this.#burst = Math.max(limit.burst, 1);
    this.#tokens = this.#burst;
    this.#updatedAt = now;
  }

  /** How long until a token is available; 0 when one is. */
  delayMs(now: number): number {
    const tokens = this.#tokensAt(now);
    if (tokens >= 1 || this.#intervalMs <= 0) return 0;
    return Math.ceil((1 - tokens) * this.#intervalMs);
  }

  /** Takes a token; call only when delayMs(now) is 0. */
  take(now: number): void {
    this.#tokens = this.#tokensAt(now) - 1;
    this.#updatedAt = now;
  }

  #tokensAt(now: number): number {
    if (this.#intervalMs <= 0) return this.#burst;
    const refilled = Math.max(now - this.#updatedAt, 0) / this.#intervalMs;
    return Math.min(this.#tokens + refilled, this.#burst);
  }
}
