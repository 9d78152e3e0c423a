import { idKey, type ResId } from '../core/res-id.ts';
import type { Resource } from '../core/resource.ts';

/**
 * Resources by id, for lookups that would otherwise scan the whole accumulator: the first resource
 * with each current id, and every resource that has or had each id, in accumulation order. It is a
 * snapshot of the ids at the time resources were added: whoever renames one must drop the index.
 */
export class ResourceIdIndex {
  readonly #byCurrentId = new Map<string, Resource>();
  readonly #byAnyId = new Map<string, Resource[]>();

  constructor(resources: readonly Resource[]) {
    for (const resource of resources) this.add(resource);
  }

  /** Indexes a resource that comes after every resource indexed so far. */
  add(resource: Resource): void {
    if (!this.#byCurrentId.has(resource.idKey)) this.#byCurrentId.set(resource.idKey, resource);
    for (const key of anyIdKeys(resource)) {
      const bucket = this.#byAnyId.get(key);
      if (bucket) bucket.push(resource);
      else this.#byAnyId.set(key, [resource]);
    }
  }

  /**
   * Puts `next` where `previous` stands. Returns false, leaving the index unusable, when their ids
   * differ: `next` would then have to go into the middle of buckets.
   */
  replace(previous: Resource, next: Resource): boolean {
    const keys = anyIdKeys(previous);
    const nextKeys = anyIdKeys(next);
    const isSameKeys = keys.size === nextKeys.size && [...keys].every((key) => nextKeys.has(key));
    if (!isSameKeys || previous.idKey !== next.idKey) return false;
    if (this.#byCurrentId.get(next.idKey) === previous) this.#byCurrentId.set(next.idKey, next);
    for (const key of keys) {
      const bucket = this.#byAnyId.get(key) ?? [];
      const index = bucket.indexOf(previous);
      if (index >= 0) bucket[index] = next;
    }
    return true;
  }

  /** The first resource whose current id is `id`. */
  withCurrentId(id: ResId): Resource | undefined {
    return this.#byCurrentId.get(idKey(id));
  }

  /** Resources whose current or any previous id is `id`, in accumulation order. */
  withAnyId(id: ResId): readonly Resource[] {
    return this.#byAnyId.get(idKey(id)) ?? [];
  }
}

/** The keys of a resource's current and previous ids, each once. */
function anyIdKeys(resource: Resource): Set<string> {
  return new Set([resource.idKey, ...resource.previousIds.map(idKey)]);
}
