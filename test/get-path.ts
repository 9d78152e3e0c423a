import { isJsonObject, type JsonValue } from '../src/core/json.ts';

/** Reads a nested map by path; undefined when any step is missing or not a map. */
export function getPath(obj: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let node = obj;
  for (const key of path) {
    // Own keys only: a path such as `metadata.__proto__` names nothing in the object.
    if (!isJsonObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}
