import { errorMessage } from '../../core/errors.ts';
import { resourcePath, type ApiResource } from '../../delivery/kube-client.ts';
import {
  ListWatch,
  type ListWatchDeps,
  type ListWatchFailure,
  type WatchCounters,
} from '../../delivery/list-watch.ts';
import type { Logger } from '../../observability/logger.ts';

/** What one list/watch selects; bindings that select the same share it. */
export interface WatchSpec {
  readonly resource: ApiResource;
  /** '' for all namespaces or a cluster-scoped resource. */
  readonly namespace: string;
  readonly labelSelector: string;
  readonly fieldSelector: string;
}

function watchSpecKey(spec: WatchSpec): string {
  const { group, version, name } = spec.resource;
  return [`${group}/${version}/${name}`, spec.namespace, spec.labelSelector, spec.fieldSelector].join('|');
}

export interface ResourceWatchPoolDeps extends Omit<ListWatchDeps, 'counters' | 'onFailure'> {
  readonly logger: Logger;
}

/**
 * One ListWatch per distinct (resource, namespace, label selector, field selector), shared by
 * every binding of every hook that selects the same; it stops when its last user releases it.
 */
export class ResourceWatchPool {
  readonly counters: WatchCounters = { lists: 0, relists: 0, watches: 0, failures: 0 };
  readonly #deps: ResourceWatchPoolDeps;
  readonly #entries = new Map<string, { readonly watch: ListWatch; users: number }>();
  readonly #specs = new WeakMap<ListWatch, WatchSpec>();

  constructor(deps: ResourceWatchPoolDeps) {
    this.#deps = deps;
  }

  /** Distinct list/watches running now. */
  get size(): number {
    return this.#entries.size;
  }

  acquire(spec: WatchSpec): ListWatch {
    const key = watchSpecKey(spec);
    let entry = this.#entries.get(key);
    if (!entry) {
      const watch = this.#create(spec);
      entry = { watch, users: 0 };
      this.#entries.set(key, entry);
      watch.start();
    }
    entry.users += 1;
    return entry.watch;
  }

  async release(watch: ListWatch): Promise<void> {
    const spec = this.#specs.get(watch);
    if (spec === undefined) return;
    const key = watchSpecKey(spec);
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

  #create(spec: WatchSpec): ListWatch {
    const { group, version, kind } = spec.resource;
    const watch: ListWatch = new ListWatch(
      {
        path: resourcePath(spec.resource, spec.namespace || undefined),
        labelSelector: spec.labelSelector,
        fieldSelector: spec.fieldSelector,
        apiVersion: group ? `${group}/${version}` : version,
        kind,
      },
      {
        api: this.#deps.api,
        ...(this.#deps.timing ? { timing: this.#deps.timing } : {}),
        counters: this.counters,
        onFailure: (failure) => {
          this.#log(spec, watch, failure);
        },
      },
    );
    this.#specs.set(watch, spec);
    return watch;
  }

  #log(spec: WatchSpec, watch: ListWatch, failure: ListWatchFailure): void {
    const msg =
      failure.status === 410 && failure.level === 'info'
        ? 'resourceVersion is gone (410), relisting'
        : `list/watch failed, retrying in ${failure.delayMs} ms`;
    this.#deps.logger[failure.level](msg, {
      resource: spec.resource.name,
      namespace: spec.namespace || undefined,
      labelSelector: spec.labelSelector || undefined,
      fieldSelector: spec.fieldSelector || undefined,
      bindings: watch.subscriberLabels.join(',') || undefined,
      status: failure.status,
      error: errorMessage(failure.error),
    });
  }
}
