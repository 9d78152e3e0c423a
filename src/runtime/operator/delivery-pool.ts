/**
 * Helm deliveries that overlap (docs/lifecycle.md "Overlapping delivery"): at most `limit` run at
 * once, and the deliveries of one release run one after another, in the order they were asked for.
 * A delivery is either awaited by its caller (`run`) or left running (`start`); the failure of one
 * left running goes to `onFailure`. `settle` waits for what is running, for one release or all.
 */
export class DeliveryPool {
  readonly limit: number;
  readonly #onFailure: (release: string, error: unknown) => void;
  /** The last delivery asked for each release, settled or not. */
  readonly #tails = new Map<string, Promise<void>>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number, onFailure: (release: string, error: unknown) => void) {
    this.limit = Math.max(1, Math.floor(limit));
    this.#onFailure = onFailure;
  }

  /**
   * Runs `deliver` once the release's earlier deliveries, those of the releases it needs (`after`:
   * one that creates its namespace or defines its kinds) and a slot are free; its result.
   */
  run<T>(release: string, deliver: () => Promise<T>, after: readonly string[] = []): Promise<T> {
    const before = Promise.all([release, ...after].map((name) => this.#tails.get(name) ?? Promise.resolve()));
    const result = before.then(() => this.#inSlot(deliver));
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(release, tail);
    void tail.then(() => {
      if (this.#tails.get(release) === tail) this.#tails.delete(release);
    });
    return result;
  }

  /** As `run`, without waiting: a failure goes to `onFailure`. */
  start(release: string, deliver: () => Promise<void>, after: readonly string[] = []): void {
    this.run(release, deliver, after).catch((error: unknown) => {
      this.#onFailure(release, error);
    });
  }

  /** Whether a delivery of the release is running or waiting. */
  pending(release: string): boolean {
    return this.#tails.has(release);
  }

  /** Resolves when the deliveries asked so far (of `release`, or of every release) are done. */
  async settle(release?: string): Promise<void> {
    if (release !== undefined) {
      await this.#tails.get(release);
      return;
    }
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }

  async #inSlot<T>(deliver: () => Promise<T>): Promise<T> {
    // A slot that frees is handed to the first waiter, so no newcomer can take it in between.
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await deliver();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
