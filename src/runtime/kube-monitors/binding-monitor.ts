import { errorMessage } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { SecretMask } from '../../core/secret-mask.ts';
import type { ApiResource } from '../../delivery/kube-client.ts';
import type { ObjectAndFilterResult } from '../../hooks/binding-context.ts';
import type { KubernetesBinding, WatchEvent } from '../../hooks/hook-config.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { Logger } from '../../observability/logger.ts';
import { filterObject, filterObjects, type FilteredObject } from './binding-filter.ts';
import type { BindingMetrics } from './binding-metrics.ts';
import { BindingSnapshot } from './binding-snapshot.ts';
import { objectIdOf, objectKeyOf } from '../../core/object-key.ts';
import type { ResourceEvent } from '../../delivery/reconcile-list.ts';
import type { ListWatch, WatchSubscriber } from '../../delivery/list-watch.ts';
import type { ResourceWatchPool } from './resource-watch-pool.ts';
import { formatFieldSelector, formatLabelSelector, nameFilterOf } from './selectors.ts';

export interface BindingMonitorDeps {
  readonly pool: ResourceWatchPool;
  readonly jq: JqEngine;
  readonly logger: Logger;
  /** Times the filter and each event, and reports the snapshot's size after every change. */
  readonly measure: BindingMetrics;
  /** A change that passed change detection; the hook monitor decides whether the hook runs. */
  readonly onChange: (watchEvent: WatchEvent, item: ObjectAndFilterResult) => void;
  /** Learns the values of the Secrets the binding sees, to mask them where they would leave the process. */
  readonly secrets?: SecretMask | undefined;
}

interface Subscription {
  readonly watch: ListWatch;
  readonly subscriber: WatchSubscriber;
}

/**
 * One kubernetes binding's view: a subscription to a shared list/watch per namespace, its own
 * jqFilter and snapshot. Changes are held back until `release()`, so that the Synchronization
 * context describes the first list and later events describe exactly what changed after it.
 */
export class BindingMonitor {
  readonly binding: KubernetesBinding;
  readonly #label: string;
  readonly #resource: ApiResource;
  readonly #deps: BindingMonitorDeps;
  readonly #objects = new BindingSnapshot();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #names: ReadonlySet<string> | undefined;
  #held: ResourceEvent[] | undefined = [];

  constructor(binding: KubernetesBinding, label: string, resource: ApiResource, deps: BindingMonitorDeps) {
    this.binding = binding;
    this.#label = label;
    this.#resource = resource;
    this.#deps = deps;
    this.#names = nameFilterOf(binding);
  }

  /** The binding's objects, sorted by namespace, then name. */
  snapshot(): readonly ObjectAndFilterResult[] {
    return this.#objects.items();
  }

  /**
   * Starts watching a namespace ('' for all, or a cluster-scoped resource); its objects join the
   * snapshot without events (shell-operator does the same for a newly matched namespace).
   */
  async addNamespace(namespace: string): Promise<void> {
    const scope = this.#resource.namespaced ? namespace : '';
    if (this.#subscriptions.has(scope)) return;
    const watch = this.#deps.pool.acquire({
      resource: this.#resource,
      namespace: scope,
      labelSelector: formatLabelSelector(this.binding.labelSelector),
      fieldSelector: formatFieldSelector(this.binding),
    });
    const subscriber: WatchSubscriber = {
      label: this.#label,
      onEvent: (event) => {
        this.#receive(event);
      },
    };
    const subscription = { watch, subscriber };
    this.#subscriptions.set(scope, subscription);
    const objects = await watch.subscribe(subscriber);
    if (this.#subscriptions.get(scope) !== subscription) return;
    const selected = objects.filter((object) => this.#isSelected(object));
    for (const object of selected) this.#learnSecret(object);
    const filtered = this.#deps.measure.filter(() =>
      filterObjects(this.#deps.jq, this.binding, selected, this.#where(), (object, error) => {
        this.#logFilterError(object, error);
      }),
    );
    selected.forEach((object, i) => {
      const result = filtered[i];
      if (result) this.#objects.put(objectKeyOf(object), result);
    });
    this.#reportSize();
  }

  /** Stops watching a namespace; its objects leave the snapshot without Deleted events. */
  async removeNamespace(namespace: string): Promise<void> {
    const subscription = this.#subscriptions.get(namespace);
    if (!subscription) return;
    this.#subscriptions.delete(namespace);
    this.#objects.removeWithPrefix(`${namespace}/`);
    this.#reportSize();
    subscription.watch.unsubscribe(subscription.subscriber);
    await this.#deps.pool.release(subscription.watch);
  }

  /** Lets the changes held since the first list through, then every later change as it comes. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const event of held) this.#handle(event);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#subscriptions.keys()].map((namespace) => this.removeNamespace(namespace)));
  }

  #receive(event: ResourceEvent): void {
    if (!this.#isSelected(event.object)) return;
    this.#learnSecret(event.object);
    if (this.#held) this.#held.push(event);
    else this.#handle(event);
  }

  #learnSecret(object: JsonObject): void {
    if (this.#resource.group === '' && this.#resource.kind === 'Secret')
      this.#deps.secrets?.addSecretObject(object);
  }

  #handle(event: ResourceEvent): void {
    this.#deps.measure.event(() => {
      this.#apply(event);
    });
  }

  /** shell-operator's handleWatchEvent: keep the newest item; Added/Modified fire only on a new checksum. */
  #apply(event: ResourceEvent): void {
    let filtered: FilteredObject;
    try {
      filtered = this.#deps.measure.filter(() =>
        filterObject(this.#deps.jq, this.binding, event.object, this.#where()),
      );
    } catch (error: unknown) {
      this.#logFilterError(event.object, error);
      return;
    }
    const key = objectKeyOf(event.object);
    const before = this.#objects.get(key);
    if (event.type === 'Deleted') this.#objects.remove(key);
    else this.#objects.put(key, filtered);
    this.#reportSize();
    if (event.type !== 'Deleted' && before?.checksum === filtered.checksum) return;
    this.#deps.onChange(event.type, filtered.item);
  }

  #reportSize(): void {
    this.#deps.measure.snapshot({ objects: this.#objects.size, bytes: this.#objects.bytes });
  }

  #isSelected(object: JsonObject): boolean {
    return this.#names === undefined || this.#names.has(objectIdOf(object).name);
  }

  #where(): string {
    return `${this.#label} jqFilter`;
  }

  #logFilterError(object: JsonObject, error: unknown): void {
    this.#deps.logger.error('jqFilter failed on an object; the object is left out of the snapshot', {
      binding: this.binding.name,
      object: objectKeyOf(object),
      error: errorMessage(error),
    });
  }
}
