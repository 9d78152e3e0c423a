import type { ObjectAndFilterResult } from '../../hooks/binding-context.ts';
import type { FilteredObject } from './binding-filter.ts';
import { compareKeys } from '../../core/object-key.ts';

/**
 * The objects one kubernetes binding keeps, by object key (`namespace/name`), listed sorted by
 * namespace then name, with the running size kube_snapshot_bytes reports.
 */
export class BindingSnapshot {
  readonly #objects = new Map<string, FilteredObject>();
  #sorted: ObjectAndFilterResult[] | undefined;
  #bytes = 0;

  get size(): number {
    return this.#objects.size;
  }

  /** The sum of the kept objects' sizes (FilteredObject.bytes). */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): FilteredObject | undefined {
    return this.#objects.get(key);
  }

  /** Keeps `object` under `key`, replacing what was there. */
  put(key: string, object: FilteredObject): void {
    this.#bytes += object.bytes - (this.#objects.get(key)?.bytes ?? 0);
    this.#objects.set(key, object);
    this.#sorted = undefined;
  }

  remove(key: string): void {
    const object = this.#objects.get(key);
    if (object === undefined) return;
    this.#bytes -= object.bytes;
    this.#objects.delete(key);
    this.#sorted = undefined;
  }

  /** Drops every object whose key starts with `prefix`. */
  removeWithPrefix(prefix: string): void {
    for (const key of [...this.#objects.keys()]) if (key.startsWith(prefix)) this.remove(key);
  }

  /** The snapshot items, sorted by namespace, then name. */
  items(): readonly ObjectAndFilterResult[] {
    this.#sorted ??= [...this.#objects.entries()]
      .sort(([a], [b]) => compareKeys(a, b))
      .map(([, object]) => object.item);
    return this.#sorted;
  }
}
