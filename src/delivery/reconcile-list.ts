import type { JsonObject } from '../core/json.ts';
import { compareKeys, objectKeyOf, resourceVersionOf } from '../core/object-key.ts';

/** A change as bindings name it (docs/hooks.md "Binding contexts"). */
type WatchEventType = 'Added' | 'Modified' | 'Deleted';

/** A change to the objects a list/watch sees, as a binding receives it. */
export interface ResourceEvent {
  readonly type: WatchEventType;
  readonly object: JsonObject;
}

/**
 * What changed between the objects known before a watch broke and a fresh list: Added and
 * Modified in key order, then Deleted (with the last known object) in key order. An object whose
 * resourceVersion did not change is not reported.
 */
export function reconcileList(
  known: ReadonlyMap<string, JsonObject>,
  fresh: readonly JsonObject[],
): ResourceEvent[] {
  const freshByKey = new Map(fresh.map((object) => [objectKeyOf(object), object]));
  const changed: ResourceEvent[] = [];
  for (const key of [...freshByKey.keys()].sort(compareKeys)) {
    const object = freshByKey.get(key);
    const before = known.get(key);
    if (object === undefined) continue;
    if (before === undefined) changed.push({ type: 'Added', object });
    else if (resourceVersionOf(before) !== resourceVersionOf(object))
      changed.push({ type: 'Modified', object });
  }
  const deleted = [...known.keys()]
    .filter((key) => !freshByKey.has(key))
    .sort(compareKeys)
    .flatMap((key) => {
      const object = known.get(key);
      return object === undefined ? [] : [{ type: 'Deleted' as const, object }];
    });
  return [...changed, ...deleted];
}
