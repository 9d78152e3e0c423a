/**
 * The webhook bodies that stream while their signature is not checked yet, at most `limit` at once.
 * Admitting one past the limit makes the oldest give way: a stranger who holds connections open
 * cannot keep a Git host's request, which arrives whole within moments, from being checked
 * (docs/git-webhook.md "Limits").
 */
export class UnverifiedBodies {
  readonly #limit: number;
  /** Oldest first: a Set keeps insertion order. */
  readonly #streaming = new Set<() => void>();

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Admits a body; `evict` is called if it must give way. Returns the release for when it ends. */
  admit(evict: () => void): () => void {
    while (this.#streaming.size >= this.#limit) {
      const oldest = this.#streaming.values().next().value;
      if (oldest === undefined) break;
      this.#streaming.delete(oldest);
      oldest();
    }
    const entry = (): void => {
      evict();
    };
    this.#streaming.add(entry);
    return () => {
      this.#streaming.delete(entry);
    };
  }

  get size(): number {
    return this.#streaming.size;
  }
}
