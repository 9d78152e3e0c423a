import { copyImplicitNulls } from './yaml/implicit-null.ts';

/** The JSON data model every Kubernetes object and values tree is held in. */
type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a JSON value. Written out rather than structuredClone, which costs several times more
 * on manifests (docs/performance.md). Subtrees shared through YAML aliases are copied apart, as
 * kustomize de-anchors what it reads.
 */
export function deepClone<T extends JsonValue>(value: T): T {
  return cloneJson(value) as T;
}

function cloneJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = value[key] as JsonValue;
    // An own `__proto__` key (JSON and YAML allow it) must stay a key, not become the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: cloneJson(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = cloneJson(item);
  }
  copyImplicitNulls(value, out);
  return out;
}

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The text of a scalar as YAML would print it; maps and lists as JSON; null and undefined as ''. */
export function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** Returns the map at `path`, creating empty maps along the way. */
export function ensureMap(obj: JsonObject, path: readonly string[]): JsonObject {
  let node = obj;
  for (const key of path) {
    const next = node[key];
    if (isJsonObject(next)) {
      node = next;
    } else {
      const created: JsonObject = {};
      node[key] = created;
      node = created;
    }
  }
  return node;
}

/**
 * How deep JSON from input (hook patches, values) may nest: the depth YAML is held to
 * (MAX_YAML_DEPTH), so that the recursive merges, copies and schema checks of values never run out
 * of stack (docs/modules.md "Limits on input").
 */
export const MAX_JSON_DEPTH = 500;

/** True when `value` nests deeper than `max` levels; walks with a stack of its own. */
export function nestsDeeperThan(value: JsonValue, max: number): boolean {
  const pending: [JsonValue, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const item of Array.isArray(node) ? node : Object.values(node)) pending.push([item, depth + 1]);
  }
  return false;
}
