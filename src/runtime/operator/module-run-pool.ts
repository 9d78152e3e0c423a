interface PoolEntry {
  readonly order: number;
  readonly enteredAt: number;
  /** The modules whose runs in the pool it still waits for (its own earlier run included). */
  readonly waitingFor: Set<string>;
  done: Promise<void>;
  startedAt?: number;
}

/** A run in the pool: running since `startedAt`, or waiting for the runs of `waitingFor`. */
export interface PoolRun {
  readonly module: string;
  readonly enteredAt: number;
  readonly startedAt?: number;
  readonly waitingFor?: readonly string[];
}

/**
 * ModuleRuns that overlap (docs/lifecycle.md "Parallel module runs"): at most `limit` runs are in
 * the pool at once, running or waiting for the runs they need; the runs of one module run one
 * after another. A run waits only for runs that entered the pool before it, so no two runs ever
 * wait for each other. A run that throws goes to `onFailure`.
 */
export class ModuleRunPool {
  readonly limit: number;
  readonly #onFailure: (module: string, error: unknown) => void;
  readonly #now: () => number;
  /** The last run asked for each module, settled or not, with the order it entered the pool in. */
  readonly #runs = new Map<string, PoolEntry>();
  #entered = 0;
  #roomWaiters: (() => void)[] = [];

  constructor(
    limit: number,
    onFailure: (module: string, error: unknown) => void,
    now: () => number = Date.now,
  ) {
    this.limit = Math.max(1, Math.floor(limit));
    this.#onFailure = onFailure;
    this.#now = now;
  }

  /** The runs in the pool, in the order they entered it, for `queue list` (docs/observability.md). */
  runs(): PoolRun[] {
    return [...this.#runs.entries()]
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([module, entry]) => ({
        module,
        enteredAt: entry.enteredAt,
        ...(entry.startedAt === undefined
          ? { waitingFor: [...entry.waitingFor] }
          : { startedAt: entry.startedAt }),
      }));
  }

  /** Resolves once fewer than `limit` runs are in the pool. */
  async room(): Promise<void> {
    while (this.#runs.size >= this.limit)
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
  }

  /**
   * Runs `run` once the module's earlier run and the runs of the modules in `after` (those still in
   * the pool) are done.
   */
  start(module: string, run: () => Promise<void>, after: readonly string[] = []): void {
    const waitingFor = new Set<string>();
    const before = [module, ...after].map((name) => {
      const earlier = this.#runs.get(name)?.done;
      if (earlier === undefined) return Promise.resolve();
      waitingFor.add(name);
      return earlier.then(() => {
        waitingFor.delete(name);
      });
    });
    const entry: PoolEntry = {
      order: this.#entered++,
      enteredAt: this.#now(),
      waitingFor,
      done: Promise.resolve(),
    };
    entry.done = Promise.all(before)
      .then(() => {
        entry.startedAt = this.#now();
        return run();
      })
      .catch((error: unknown) => {
        this.#onFailure(module, error);
      });
    const done = entry.done;
    this.#runs.set(module, entry);
    void done.finally(() => {
      if (this.#runs.get(module) === entry) this.#runs.delete(module);
      const waiters = this.#roomWaiters;
      this.#roomWaiters = [];
      for (const wake of waiters) wake();
    });
  }

  /** Whether a run of the module is running or waiting in the pool. */
  pending(module: string): boolean {
    return this.#runs.has(module);
  }

  /** Whether `other` has a run in the pool that entered it before the run of `module`. */
  isEarlier(other: string, module: string): boolean {
    const theirs = this.#runs.get(other);
    const ours = this.#runs.get(module);
    return theirs !== undefined && (ours === undefined || theirs.order < ours.order);
  }

  /** Resolves when the runs asked so far (of the given modules, or of every module) are done. */
  async settle(modules?: readonly string[]): Promise<void> {
    if (modules !== undefined) {
      await Promise.all(modules.map((module) => this.#runs.get(module)?.done ?? Promise.resolve()));
      return;
    }
    while (this.#runs.size > 0) await Promise.all([...this.#runs.values()].map((entry) => entry.done));
  }
}
