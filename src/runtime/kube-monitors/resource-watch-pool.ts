import {
  ResourceWatch,
  watchSpecKey,
  type ResourceWatchDeps,
  type WatchCounters,
  type WatchSpec,
} from './resource-watch.ts';

/**
 * One ResourceWatch per distinct (resource, namespace, label selector, field selector), shared by
 * every binding of every hook that selects the same; it stops when its last user releases it.
 */
export class ResourceWatchPool {
  readonly counters: WatchCounters = { lists: 0, relists: 0, watches: 0, failures: 0 };
  readonly #deps: Omit<ResourceWatchDeps, 'counters'>;
  readonly #entries = new Map<string, { readonly watch: ResourceWatch; users: number }>();

  constructor(deps: Omit<ResourceWatchDeps, 'counters'>) {
    this.#deps = deps;
  }

  /** Distinct list/watches running now. */
  get size(): number {
    return this.#entries.size;
  }

  acquire(spec: WatchSpec): ResourceWatch {
    const key = watchSpecKey(spec);
    let entry = this.#entries.get(key);
    if (!entry) {
      const watch = new ResourceWatch(spec, { ...this.#deps, counters: this.counters });
      entry = { watch, users: 0 };
      this.#entries.set(key, entry);
      watch.start();
    }
    entry.users += 1;
    return entry.watch;
  }

  async release(watch: ResourceWatch): Promise<void> {
    const key = watchSpecKey(watch.spec);
    const entry = this.#entries.get(key);
    if (entry?.watch !== watch) return;
    entry.users -= 1;
    if (entry.users > 0) return;
    this.#entries.delete(key);
    await watch.stop();
  }

  async stopAll(): Promise<void> {
    const watches = [...this.#entries.values()].map((entry) => entry.watch);
    this.#entries.clear();
    await Promise.all(watches.map((watch) => watch.stop()));
  }
}
