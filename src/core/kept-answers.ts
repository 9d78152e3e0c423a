/**
 * Answers kept for `ttlMs` per key, at most `limit` of them: when full, the oldest is dropped first,
 * so a burst of new keys pushes out only answers older than theirs and memory stays bounded whatever
 * the keys are. A map in insertion order is a queue by age: expired answers are swept from its front.
 */
export class KeptAnswers<T> {
  readonly #entries = new Map<string, { readonly at: number; readonly value: T }>();
  readonly #ttlMs: number;
  readonly #limit: number;
  readonly #now: () => number;

  constructor(options: { readonly ttlMs: number; readonly limit: number; readonly now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#limit = Math.max(options.limit, 1);
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The answer kept for `key`, undefined when none is or it is older than the TTL. */
  get(key: string): T | undefined {
    this.#sweep();
    return this.#entries.get(key)?.value;
  }

  set(key: string, value: T): void {
    this.#sweep();
    this.#entries.delete(key);
    this.#entries.set(key, { at: this.#now(), value });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
    }
  }

  /** Drops `key`'s answer, only if it is still `value` (a newer one is kept). */
  delete(key: string, value?: T): void {
    if (value === undefined || this.#entries.get(key)?.value === value) this.#entries.delete(key);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (now - entry.at < this.#ttlMs) break;
      this.#entries.delete(key);
    }
  }
}
