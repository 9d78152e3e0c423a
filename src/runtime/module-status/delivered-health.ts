import { builtinKind } from '../../core/builtin-kinds.ts';
import { errorMessage } from '../../core/errors.ts';
import {
  healthFields,
  isHealthFollowed,
  objectHealth,
  type HealthStatus,
  type ObjectHealth,
} from '../../core/object-health.ts';
import { apiVersionOf } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { resourcePath, type ApiResource, type KubeClient } from '../../delivery/kube-client.ts';
import { ListWatch, type ListWatchTiming, type WatchSubscriber } from '../../delivery/list-watch.ts';
import type { ResourceEvent } from '../../delivery/reconcile-list.ts';
import { objectKeyOf } from '../../core/object-key.ts';
import type { Logger } from '../../observability/logger.ts';

export type HealthApi = Pick<KubeClient, 'request' | 'watch' | 'resolveResource'>;

export interface DeliveredHealthOptions {
  readonly api: HealthApi;
  /** ADDON_OPERATOR_NAMESPACE: where helm puts a namespaced object that names no namespace. */
  readonly defaultNamespace: string;
  readonly logger: Logger;
  /** Told the worst health of a module's followed objects whenever it may have changed. */
  readonly onHealth: (module: string, health: ObjectHealth) => void;
  /** Told of every watch event of an object a module delivered (drift from watches, docs/drift.md). */
  readonly onObjectEvent?: (module: string, event: ResourceEvent) => void;
  /** Told when a module's objects are no longer followed (its release is gone). */
  readonly onForget?: (module: string) => void;
  readonly timing?: Partial<ListWatchTiming>;
}

/** One followed object of a module: which watch sees it, under which key. */
interface Followed {
  /** `ns/Kind/name` as the object's id was rendered: how the module's objects are listed. */
  readonly id: string;
  readonly watchKey: string;
  readonly objectKey: string;
  /** `Deployment demo/web`, as messages name it. */
  readonly label: string;
}

interface SharedWatch {
  readonly watch: ListWatch;
  readonly subscriber: WatchSubscriber;
  readonly modules: Set<string>;
}

const SEVERITY: Readonly<Record<HealthStatus, number>> = {
  Current: 0,
  InProgress: 1,
  Terminating: 2,
  Failed: 3,
};

/**
 * Follows the health of what each module delivered (docs/module-status.md "Health"): one list+watch
 * per kind and namespace, shared by every module with objects there, so that many objects cost a
 * few watches and no polling. After each change the module's worst object decides its health.
 */
export class DeliveredHealth {
  readonly #options: DeliveredHealthOptions;
  readonly #modules = new Map<string, readonly Followed[]>();
  readonly #watches = new Map<string, SharedWatch>();
  readonly #generation = new Map<string, number>();
  /** Follows not yet done: their watches may not have listed yet. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: DeliveredHealthOptions) {
    this.#options = options;
  }

  /**
   * Follows the objects of a module's latest delivery, in place of what it followed before; resolves
   * once every watch it needs has listed and the module's health was told.
   */
  follow(module: string, resources: readonly Resource[]): Promise<void> {
    const following = this.#follow(module, resources);
    this.#inFlight.add(following);
    const done = (): void => {
      this.#inFlight.delete(following);
    };
    following.then(done, done);
    return following;
  }

  /**
   * Resolves once every follow begun so far is done: from then on each change of a followed object
   * reaches its watch as an event (what `/readyz` waits for, docs/drift.md).
   */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async #follow(module: string, resources: readonly Resource[]): Promise<void> {
    const generation = (this.#generation.get(module) ?? 0) + 1;
    this.#generation.set(module, generation);
    const followed: Followed[] = [];
    for (const resource of resources) {
      const builtin = builtinKind(apiVersionOf(resource.id), resource.id.kind) !== undefined;
      if (!isHealthFollowed(resource.obj, builtin)) continue;
      const target = await this.#resolve(resource);
      if (target !== undefined) followed.push(target);
    }
    if (this.#generation.get(module) !== generation) return;
    const before = this.#modules.get(module) ?? [];
    this.#modules.set(module, followed);
    for (const item of followed) await this.#acquire(item.watchKey, module);
    if (this.#generation.get(module) !== generation) return;
    await this.#releaseUnused(module, before);
    this.#evaluate(module);
  }

  async forget(module: string): Promise<void> {
    this.#generation.set(module, (this.#generation.get(module) ?? 0) + 1);
    const before = this.#modules.get(module) ?? [];
    this.#modules.delete(module);
    this.#options.onForget?.(module);
    await this.#releaseUnused(module, before);
  }

  /** Distinct list+watches running now. */
  get watchCount(): number {
    return this.#watches.size;
  }

  async stop(): Promise<void> {
    const watches = [...this.#watches.values()];
    this.#watches.clear();
    this.#modules.clear();
    await Promise.all(watches.map((shared) => shared.watch.stop()));
  }

  async #resolve(resource: Resource): Promise<Followed | undefined> {
    const { id } = resource;
    let api: ApiResource;
    try {
      api = await this.#options.api.resolveResource(apiVersionOf(id), id.kind);
    } catch (error: unknown) {
      this.#options.logger.error('health of an object not followed: its kind is not served', {
        kind: id.kind,
        name: id.name,
        error: errorMessage(error),
      });
      return undefined;
    }
    const namespace = api.namespaced ? id.namespace || this.#options.defaultNamespace : '';
    const watchKey = `${api.group}/${api.version}/${api.name}|${namespace}`;
    if (!this.#watches.has(watchKey) && !this.#pendingTargets.has(watchKey))
      this.#pendingTargets.set(watchKey, { api, namespace });
    return {
      id: `${id.namespace}/${id.kind}/${id.name}`,
      watchKey,
      objectKey: `${namespace}/${id.name}`,
      label: `${id.kind} ${namespace ? `${namespace}/` : ''}${id.name}`,
    };
  }

  readonly #pendingTargets = new Map<string, { readonly api: ApiResource; readonly namespace: string }>();

  async #acquire(watchKey: string, module: string): Promise<void> {
    const existing = this.#watches.get(watchKey);
    if (existing !== undefined) {
      existing.modules.add(module);
      // Another module's follow may have started this watch a moment ago: its objects are only
      // worth reading once it has listed.
      await existing.watch.listed;
      return;
    }
    const target = this.#pendingTargets.get(watchKey);
    if (target === undefined) return;
    this.#pendingTargets.delete(watchKey);
    const { api, namespace } = target;
    const watch = new ListWatch(
      {
        path: resourcePath(api, namespace || undefined),
        apiVersion: api.group ? `${api.group}/${api.version}` : api.version,
        kind: api.kind,
      },
      {
        api: this.#options.api,
        // Every object of the kind in the namespace is listed; only what health reads is kept.
        keep: healthFields,
        ...(this.#options.timing ? { timing: this.#options.timing } : {}),
        onFailure: (failure) => {
          this.#options.logger[failure.level]('health watch interrupted', {
            resource: api.name,
            namespace: namespace || undefined,
            status: failure.status,
            error: errorMessage(failure.error),
          });
        },
      },
    );
    const shared: SharedWatch = {
      watch,
      modules: new Set([module]),
      subscriber: {
        label: 'health',
        onEvent: (event) => {
          const objectKey = objectKeyOf(event.object);
          for (const follower of shared.modules) {
            this.#evaluate(follower);
            if (this.#follows(follower, watchKey, objectKey)) this.#options.onObjectEvent?.(follower, event);
          }
        },
      },
    };
    this.#watches.set(watchKey, shared);
    watch.start();
    await watch.subscribe(shared.subscriber);
  }

  async #releaseUnused(module: string, before: readonly Followed[]): Promise<void> {
    const still = new Set((this.#modules.get(module) ?? []).map((item) => item.watchKey));
    for (const key of new Set(before.map((item) => item.watchKey))) {
      if (still.has(key)) continue;
      const shared = this.#watches.get(key);
      if (shared === undefined) continue;
      shared.modules.delete(module);
      if (shared.modules.size > 0) continue;
      this.#watches.delete(key);
      await shared.watch.stop();
    }
  }

  #follows(module: string, watchKey: string, objectKey: string): boolean {
    return (this.#modules.get(module) ?? []).some(
      (item) => item.watchKey === watchKey && item.objectKey === objectKey,
    );
  }

  /**
   * The health of each followed object of a module now, by its `ns/Kind/name` id (the status page's
   * objects, docs/ui.md); objects whose kind has no health rule are not in it.
   */
  objectHealth(module: string): Map<string, ObjectHealth> {
    return new Map((this.#modules.get(module) ?? []).map((item) => [item.id, this.#healthOf(item)]));
  }

  #healthOf(item: Followed): ObjectHealth {
    const object = this.#watches.get(item.watchKey)?.watch.objects.get(item.objectKey);
    return object === undefined ? { status: 'InProgress', message: 'not found' } : objectHealth(object);
  }

  #evaluate(module: string): void {
    const followed = this.#modules.get(module);
    if (followed === undefined) return;
    let worst: ObjectHealth = { status: 'Current', message: '' };
    for (const item of followed) {
      const health = this.#healthOf(item);
      if (SEVERITY[health.status] > SEVERITY[worst.status])
        worst = { status: health.status, message: `${item.label}: ${health.message}` };
    }
    this.#options.onHealth(module, worst);
  }
}
