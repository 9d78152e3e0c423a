import { errorMessage } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import {
  KubeApiError,
  resourcePath,
  type ApiResource,
  type KubeClient,
  type WatchEvent as ApiWatchEvent,
} from '../../delivery/kube-client.ts';
import type { Logger } from '../../observability/logger.ts';
import { jitteredBackoffMs } from '../../core/backoff.ts';
import { WATCH_BACKOFF, type Sleep } from './backoff.ts';
import { objectKeyOf, resourceVersionOf } from './object-key.ts';
import { reconcileList, type ResourceEvent } from './reconcile-list.ts';

/** The part of KubeClient a watch needs. */
export type WatchApi = Pick<KubeClient, 'request' | 'watch'>;

/** What one list/watch selects; bindings that select the same share it. */
export interface WatchSpec {
  readonly resource: ApiResource;
  /** '' for all namespaces or a cluster-scoped resource. */
  readonly namespace: string;
  readonly labelSelector: string;
  readonly fieldSelector: string;
}

export function watchSpecKey(spec: WatchSpec): string {
  const { group, version, name } = spec.resource;
  return [`${group}/${version}/${name}`, spec.namespace, spec.labelSelector, spec.fieldSelector].join('|');
}

export interface WatchTiming {
  readonly sleep: Sleep;
  readonly random: () => number;
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

export interface ResourceWatchDeps {
  readonly api: WatchApi;
  readonly logger: Logger;
  readonly timing: WatchTiming;
  readonly counters: WatchCounters;
}

/** A subscriber: receives every change after the moment it subscribed. */
export interface WatchSubscriber {
  /** `hook/binding`, for logs. */
  readonly label: string;
  readonly onEvent: (event: ResourceEvent) => void;
}

/**
 * One list/watch of a resource, kept in step with the apiserver: lists, then watches from the
 * list's resourceVersion (with bookmarks); rewatches from the last resourceVersion when the server
 * ends a watch; relists and reports the difference after 410 Gone; retries anything else with
 * bounded backoff, logging every failure. Its objects always converge to a fresh list.
 */
export class ResourceWatch {
  readonly spec: WatchSpec;
  readonly #deps: ResourceWatchDeps;
  readonly #objects = new Map<string, JsonObject>();
  readonly #subscribers = new Set<WatchSubscriber>();
  readonly #abort = new AbortController();
  readonly #listed: Promise<void>;
  #resolveListed: () => void = () => undefined;
  #resourceVersion = '';
  #listedOnce = false;
  #running: Promise<void> = Promise.resolve();

  constructor(spec: WatchSpec, deps: ResourceWatchDeps) {
    this.spec = spec;
    this.#deps = deps;
    this.#listed = new Promise((resolve) => (this.#resolveListed = resolve));
  }

  start(): void {
    this.#running = this.#run();
  }

  /** Adds a subscriber once the first list is in, and returns the objects as they are at that moment. */
  async subscribe(subscriber: WatchSubscriber): Promise<JsonObject[]> {
    await this.#listed;
    if (this.#abort.signal.aborted) return [];
    this.#subscribers.add(subscriber);
    return [...this.#objects.values()];
  }

  unsubscribe(subscriber: WatchSubscriber): number {
    this.#subscribers.delete(subscriber);
    return this.#subscribers.size;
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
        if (delivered) failures = 0;
        // The server ended a watch that brought nothing: pause briefly so it is never a tight loop.
        else
          await this.#deps.timing.sleep(
            jitteredBackoffMs(1, WATCH_BACKOFF, this.#deps.timing.random),
            signal,
          );
      } catch (error: unknown) {
        if (this.#isStopped()) break;
        const status = error instanceof KubeApiError ? error.status : 0;
        if (status === 410) {
          mustList = true;
          goneInARow += 1;
          this.#log('info', 'resourceVersion is gone (410), relisting', error, status);
          if (goneInARow === 1) continue;
        }
        failures += 1;
        const delayMs = jitteredBackoffMs(failures, WATCH_BACKOFF, this.#deps.timing.random);
        this.#deps.counters.failures += 1;
        this.#log('error', `list/watch failed, retrying in ${delayMs} ms`, error, status);
        await this.#deps.timing.sleep(delayMs, signal);
      }
    }
    this.#resolveListed();
  }

  #isStopped(): boolean {
    return this.#abort.signal.aborted;
  }

  async #list(): Promise<void> {
    const list = await this.#deps.api.request('GET', this.#path(), { query: this.#selectors() });
    const items = (Array.isArray(list.items) ? list.items : [])
      .filter(isJsonObject)
      .map((item) => this.#withKind(item));
    const metadata = isJsonObject(list.metadata) ? list.metadata : {};
    this.#deps.counters.lists += 1;
    const changes = this.#listedOnce ? reconcileList(this.#objects, items) : [];
    if (this.#listedOnce) this.#deps.counters.relists += 1;
    this.#listedOnce = true;
    this.#objects.clear();
    for (const item of items) this.#objects.set(objectKeyOf(item), item);
    this.#resourceVersion = typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '';
    this.#resolveListed();
    for (const change of changes) this.#notify(change);
  }

  async #watchOnce(signal: AbortSignal): Promise<boolean> {
    let delivered = false;
    this.#deps.counters.watches += 1;
    const query = {
      ...this.#selectors(),
      resourceVersion: this.#resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: this.#deps.timing.watchTimeoutSeconds(),
    };
    await this.#deps.api.watch(
      this.#path(),
      query,
      (event) => {
        delivered = true;
        this.#apply(event);
      },
      { signal, idleMs: this.#deps.timing.idleMs },
    );
    return delivered;
  }

  #apply(event: ApiWatchEvent): void {
    const version = resourceVersionOf(event.object);
    if (version !== '') this.#resourceVersion = version;
    if (event.type === 'BOOKMARK') return;
    const object = this.#withKind(event.object);
    const key = objectKeyOf(object);
    if (event.type === 'DELETED') this.#objects.delete(key);
    else this.#objects.set(key, object);
    this.#notify({ type: WATCH_EVENT[event.type], object });
  }

  #notify(event: ResourceEvent): void {
    for (const subscriber of [...this.#subscribers]) subscriber.onEvent(event);
  }

  /** List items come without apiVersion and kind; hooks expect them on every object. */
  #withKind(object: JsonObject): JsonObject {
    if (typeof object.kind === 'string' && typeof object.apiVersion === 'string') return object;
    const { group, version, kind } = this.spec.resource;
    return { apiVersion: group ? `${group}/${version}` : version, kind, ...object };
  }

  #path(): string {
    return resourcePath(this.spec.resource, this.spec.namespace || undefined);
  }

  #selectors(): Record<string, string> {
    const { labelSelector, fieldSelector } = this.spec;
    return { ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) };
  }

  #log(level: 'info' | 'error', msg: string, error: unknown, status: number): void {
    this.#deps.logger[level](msg, {
      resource: this.spec.resource.name,
      namespace: this.spec.namespace || undefined,
      labelSelector: this.spec.labelSelector || undefined,
      fieldSelector: this.spec.fieldSelector || undefined,
      bindings: [...this.#subscribers].map((subscriber) => subscriber.label).join(',') || undefined,
      status,
      error: errorMessage(error),
    });
  }
}

const WATCH_EVENT = { ADDED: 'Added', MODIFIED: 'Modified', DELETED: 'Deleted' } as const;
