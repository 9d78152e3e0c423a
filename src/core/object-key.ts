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

/**
 * The order of the strings' UTF-8 bytes, as Go sorts strings, without encoding them. Outside the
 * surrogates a UTF-16 unit is its code point, and UTF-8 keeps code point order; where the first
 * difference is a surrogate (a code point above U+FFFF, or a lone one, which UTF-8 writes as U+FFFD)
 * the bytes themselves are compared.
 */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const ac = a.charCodeAt(i);
    const bc = b.charCodeAt(i);
    if (ac === bc) continue;
    if (isSurrogate(ac) || isSurrogate(bc)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
    return ac - bc;
  }
  return a.length - b.length;
}

function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}
