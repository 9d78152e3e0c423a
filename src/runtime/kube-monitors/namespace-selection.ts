import { errorMessage } from '../../core/errors.ts';
import type { ApiResource } from '../../delivery/kube-client.ts';
import type { LabelSelector } from '../../hooks/hook-config.ts';
import type { Logger } from '../../observability/logger.ts';
import { objectIdOf } from '../../core/object-key.ts';
import type { ListWatch, WatchSubscriber } from '../../delivery/list-watch.ts';
import type { ResourceWatchPool } from './resource-watch-pool.ts';
import { formatLabelSelector } from './selectors.ts';

const NAMESPACES: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  name: 'namespaces',
  namespaced: false,
};

/** What a namespace selection drives: a binding's per-namespace watches. */
export interface NamespaceTarget {
  addNamespace(namespace: string): Promise<void>;
  removeNamespace(namespace: string): Promise<void>;
}

/**
 * `namespace.labelSelector` (docs/hooks.md "kubernetes"): a watch on Namespaces with that selector adds a
 * binding's watch for each namespace that matches and removes it when the namespace stops
 * matching or is deleted. The apiserver reports a namespace that starts or stops matching a
 * label selector as ADDED or DELETED.
 */
export class NamespaceSelection {
  readonly #pool: ResourceWatchPool;
  readonly #target: NamespaceTarget;
  readonly #logger: Logger;
  readonly #subscriber: WatchSubscriber;
  #watch: ListWatch | undefined;

  constructor(pool: ResourceWatchPool, target: NamespaceTarget, label: string, logger: Logger) {
    this.#pool = pool;
    this.#target = target;
    this.#logger = logger;
    this.#subscriber = {
      label,
      onEvent: ({ type, object }) => {
        const { name } = objectIdOf(object);
        if (type === 'Added') this.#follow(this.#target.addNamespace(name), name);
        if (type === 'Deleted') this.#follow(this.#target.removeNamespace(name), name);
      },
    };
  }

  /** Resolves once every namespace matching now is watched. */
  async start(selector: LabelSelector): Promise<void> {
    this.#watch = this.#pool.acquire({
      resource: NAMESPACES,
      namespace: '',
      labelSelector: formatLabelSelector(selector),
      fieldSelector: '',
    });
    const namespaces = await this.#watch.subscribe(this.#subscriber);
    await Promise.all(namespaces.map((namespace) => this.#target.addNamespace(objectIdOf(namespace).name)));
  }

  async stop(): Promise<void> {
    const watch = this.#watch;
    this.#watch = undefined;
    if (!watch) return;
    watch.unsubscribe(this.#subscriber);
    await this.#pool.release(watch);
  }

  #follow(change: Promise<void>, namespace: string): void {
    change.catch((error: unknown) => {
      this.#logger.error('cannot follow a namespace change', {
        namespace,
        error: errorMessage(error),
      });
    });
  }
}
