import { backoffDelayMs, WATCH_BACKOFF, type Backoff } from '../core/backoff.ts';
import { sleep, systemClock, type Clock } from '../core/clock.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { objectKeyOf, resourceVersionOf } from '../core/object-key.ts';
import { KubeApiError, type KubeClient, type WatchEvent as ApiWatchEvent } from './kube-client.ts';
import { reconcileList, type ResourceEvent } from './reconcile-list.ts';

/** The part of KubeClient a list+watch needs. */
export type WatchApi = Pick<KubeClient, 'request' | 'watch'>;

/** What one list+watch selects. */
export interface ListWatchTarget {
  /** The collection, e.g. `/api/v1/namespaces/ns/configmaps`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Set on list items, which come without them; hooks and health rules expect them. */
  readonly apiVersion: string;
  readonly kind: string;
}

export interface ListWatchTiming {
  readonly clock: Clock;
  readonly backoff: Backoff;
  /** The server ends each watch after this (client-go picks 5–10 min); tests make it short. */
  readonly watchTimeoutSeconds: () => number;
  /** A watch silent for longer is treated as a broken connection. */
  readonly idleMs: number;
}

/** Counters a test or a metric reads: how many requests the watches made. */
export interface WatchCounters {
  lists: number;
  relists: number;
  watches: number;
  failures: number;
}

/** Why the loop is pausing: 410 Gone is routine (`info`), the rest are failures (`error`). */
export interface ListWatchFailure {
  readonly error: unknown;
  readonly status: number;
  readonly level: 'info' | 'error';
  readonly delayMs: number;
}

export interface ListWatchDeps {
  readonly api: WatchApi;
  readonly timing?: Partial<ListWatchTiming>;
  readonly counters?: WatchCounters;
  /** Told before each pause, so the owner logs it in its own words. */
  readonly onFailure?: (failure: ListWatchFailure) => void;
  /**
   * What `objects` holds of each object, when not all of it: a watch that only follows health
   * keeps what the health rules read (DeliveredHealth). Subscribers still get each event's whole
   * object; a relist's Deleted events and `subscribe`'s answer carry what was kept. It must keep
   * metadata's name, namespace and resourceVersion (a relist compares by them).
   */
  readonly keep?: (object: JsonObject) => JsonObject;
}

/** A subscriber: receives every change after the moment it subscribed. */
export interface WatchSubscriber {
  /** For logs: `hook/binding`, `health`, `drift`, … */
  readonly label: string;
  readonly onEvent: (event: ResourceEvent) => void;
}

/** A watch the server closes sooner than this without an event counts as a failure (no tight loop). */
const MIN_HEALTHY_WATCH_MS = 1000;

function defaultWatchTiming(clock: Clock = systemClock): ListWatchTiming {
  return {
    clock,
    backoff: WATCH_BACKOFF,
    watchTimeoutSeconds: () => Math.round(300 * (1 + clock.random())),
    idleMs: 660_000,
  };
}

/**
 * The one supervised list+watch loop every follower of the API server uses (hook bindings, the
 * ConfigMap, delivered objects; docs/architecture.md "Where things live"). It lists, then watches
 * from the list's resourceVersion with bookmarks; rewatches from the last resourceVersion when the
 * server ends a watch; relists and reports the difference after 410 Gone; retries anything else with
 * jittered backoff that starts afresh after a healthy watch. Its objects always converge to a fresh
 * list, and it stops only when stopped.
 */
export class ListWatch {
  readonly target: ListWatchTarget;
  readonly #deps: ListWatchDeps;
  readonly #timing: ListWatchTiming;
  readonly #counters: WatchCounters;
  readonly #objects = new Map<string, JsonObject>();
  readonly #subscribers = new Set<WatchSubscriber>();
  readonly #abort = new AbortController();
  readonly #listed: Promise<void>;
  #resolveListed: () => void = () => undefined;
  #resourceVersion = '';
  #listedOnce = false;
  #watchHealthy = false;
  #running: Promise<void> = Promise.resolve();

  constructor(target: ListWatchTarget, deps: ListWatchDeps) {
    this.target = target;
    this.#deps = deps;
    this.#timing = { ...defaultWatchTiming(deps.timing?.clock), ...deps.timing };
    this.#counters = deps.counters ?? { lists: 0, relists: 0, watches: 0, failures: 0 };
    this.#listed = new Promise((resolve) => (this.#resolveListed = resolve));
  }

  start(): void {
    this.#running = this.#run();
  }

  /** Resolves once the first list is in (or the watch stopped). */
  get listed(): Promise<void> {
    return this.#listed;
  }

  /** The objects as last seen (what `keep` keeps of them), by `namespace/name`. */
  get objects(): ReadonlyMap<string, JsonObject> {
    return this.#objects;
  }

  /** Adds a subscriber once the first list is in, and returns the objects as they are at that moment. */
  async subscribe(subscriber: WatchSubscriber): Promise<JsonObject[]> {
    await this.#listed;
    if (this.#abort.signal.aborted) return [];
    this.#subscribers.add(subscriber);
    return [...this.#objects.values()];
  }

  /** Removes a subscriber; returns how many are left. */
  unsubscribe(subscriber: WatchSubscriber): number {
    this.#subscribers.delete(subscriber);
    return this.#subscribers.size;
  }

  get subscriberLabels(): string[] {
    return [...this.#subscribers].map((subscriber) => subscriber.label);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.#resolveListed();
    await this.#running;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    let failures = 0;
    let goneInARow = 0;
    let mustList = true;
    while (!signal.aborted) {
      try {
        if (mustList) {
          await this.#list();
          mustList = false;
        }
        const delivered = await this.#watchOnce(signal);
        goneInARow = 0;
        if (this.#isStopped()) break;
        failures = this.#watchHealthy ? 0 : failures + 1;
        // The server ended a watch that brought nothing: pause, briefly when it ran its course, so
        // that it is never a tight loop.
        if (!delivered)
          await this.#pause(Math.max(failures, 1), { error: undefined, status: 0, level: 'info' });
      } catch (error: unknown) {
        if (this.#isStopped()) break;
        const status = error instanceof KubeApiError ? error.status : 0;
        // 410 Gone only means the watch fell behind the server's history: relist at once, once.
        if (status === 410) {
          mustList = true;
          goneInARow += 1;
          if (goneInARow === 1) {
            this.#deps.onFailure?.({ error, status, level: 'info', delayMs: 0 });
            continue;
          }
        }
        // A watch that ran well before it broke starts the backoff afresh.
        failures = this.#watchHealthy ? 1 : failures + 1;
        this.#watchHealthy = false;
        this.#counters.failures += 1;
        await this.#pause(failures, { error, status, level: status === 410 ? 'info' : 'error' });
      }
    }
    this.#resolveListed();
  }

  #isStopped(): boolean {
    return this.#abort.signal.aborted;
  }

  async #pause(failures: number, failure: Omit<ListWatchFailure, 'delayMs'>): Promise<void> {
    const { clock, backoff } = this.#timing;
    const delayMs = backoffDelayMs(failures, backoff, () => clock.random());
    if (failure.error !== undefined) this.#deps.onFailure?.({ ...failure, delayMs });
    await sleep(clock, delayMs, this.#abort.signal);
  }

  async #list(): Promise<void> {
    const list = await this.#deps.api.request('GET', this.target.path, { query: this.#selectors() });
    const items = (Array.isArray(list.items) ? list.items : [])
      .filter(isJsonObject)
      .map((item) => this.#withKind(item));
    this.#counters.lists += 1;
    const changes = this.#listedOnce ? reconcileList(this.#objects, items) : [];
    if (this.#listedOnce) this.#counters.relists += 1;
    this.#listedOnce = true;
    this.#objects.clear();
    for (const item of items) this.#objects.set(objectKeyOf(item), this.#kept(item));
    this.#resourceVersion = resourceVersionOf(list);
    this.#resolveListed();
    for (const change of changes) this.#notify(change);
  }

  /**
   * Watches until the server ends it; says whether any event came. Healthy once it delivered an
   * event or lasted MIN_HEALTHY_WATCH_MS.
   */
  async #watchOnce(signal: AbortSignal): Promise<boolean> {
    let delivered = false;
    const clock = this.#timing.clock;
    const started = clock.now();
    this.#watchHealthy = false;
    this.#counters.watches += 1;
    const query = {
      ...this.#selectors(),
      resourceVersion: this.#resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: this.#timing.watchTimeoutSeconds(),
    };
    try {
      await this.#deps.api.watch(
        this.target.path,
        query,
        (event) => {
          delivered = true;
          this.#watchHealthy = true;
          this.#apply(event);
        },
        { signal, idleMs: this.#timing.idleMs },
      );
    } finally {
      if (clock.now() - started >= MIN_HEALTHY_WATCH_MS) this.#watchHealthy = true;
    }
    return delivered;
  }

  #apply(event: ApiWatchEvent): void {
    const version = resourceVersionOf(event.object);
    if (version !== '') this.#resourceVersion = version;
    if (event.type === 'BOOKMARK') return;
    const object = this.#withKind(event.object);
    const key = objectKeyOf(object);
    if (event.type === 'DELETED') this.#objects.delete(key);
    else this.#objects.set(key, this.#kept(object));
    this.#notify({ type: WATCH_EVENT[event.type], object });
  }

  #notify(event: ResourceEvent): void {
    for (const subscriber of [...this.#subscribers]) subscriber.onEvent(event);
  }

  #kept(object: JsonObject): JsonObject {
    return this.#deps.keep === undefined ? object : this.#deps.keep(object);
  }

  #withKind(object: JsonObject): JsonObject {
    if (typeof object.kind === 'string' && typeof object.apiVersion === 'string') return object;
    return { apiVersion: this.target.apiVersion, kind: this.target.kind, ...object };
  }

  #selectors(): Record<string, string> {
    const { labelSelector, fieldSelector } = this.target;
    return { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
  }
}

const WATCH_EVENT = { ADDED: 'Added', MODIFIED: 'Modified', DELETED: 'Deleted' } as const;
