import { isJsonObject, type JsonObject } from './json.ts';

/**
 * How objects are identified and ordered in a snapshot: namespace, then name (docs/hooks.md "Binding
 * contexts").
 */

export interface ObjectId {
  readonly namespace: string;
  readonly name: string;
}

export function objectIdOf(object: JsonObject): ObjectId {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
  };
}

/** `namespace/name`; `/name` for a cluster-scoped object. Sorting keys sorts by namespace, then name. */
export function objectKeyOf(object: JsonObject): string {
  const { namespace, name } = objectIdOf(object);
  return `${namespace}/${name}`;
}

export function resourceVersionOf(object: JsonObject): string {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '';
}

/** Byte order, as Go's sort of strings. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
