import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/**
 * jq's value semantics the subset needs (docs/hooks.md "jq"): type names, truth, ordering and
 * equality. Two signals leave jq the last word: JqError for what jq itself reports as an error (so
 * `?` and `//` may swallow it, and otherwise jq is asked for its message), Defer for what the subset
 * does not reproduce exactly (jq then evaluates the whole filter).
 */
export class JqError extends Error {}
export class Defer extends Error {}

export type JqType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function typeOf(value: JsonValue): JqType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'boolean' || type === 'number' || type === 'string') return type;
  return 'object';
}

export function isTruthy(value: JsonValue): boolean {
  return value !== null && value !== false;
}

const TYPE_RANK: Record<JqType, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5 };

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const typeA = typeOf(a);
  const typeB = typeOf(b);
  if (typeA !== typeB) return TYPE_RANK[typeA] - TYPE_RANK[typeB];
  switch (typeA) {
    case 'null':
      return 0;
    case 'boolean':
      return Number(a) - Number(b);
    case 'number':
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 'string':
      return compareStrings(a as string, b as string);
    case 'array':
      return compareArrays(a as JsonValue[], b as JsonValue[]);
    case 'object':
      return compareObjects(a as JsonObject, b as JsonObject);
  }
}

/** By code point, as jq compares UTF-8 bytes (JavaScript's `<` compares UTF-16 units). */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const left = codePoints(a);
  const right = codePoints(b);
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const order = (left[index] ?? 0) - (right[index] ?? 0);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

/** A string's code points: jq counts and compares by code point (not by grapheme, nor by UTF-16 unit). */
export function codePoints(text: string): number[] {
  const points: number[] = [];
  for (const char of text) points.push(char.codePointAt(0) ?? 0);
  return points;
}

function compareArrays(a: readonly JsonValue[], b: readonly JsonValue[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = compareValues(a[index] ?? null, b[index] ?? null);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Objects: their sorted key lists first, then the values key by key. */
function compareObjects(a: JsonObject, b: JsonObject): number {
  const keysA = sortedKeys(a);
  const keysB = sortedKeys(b);
  const byKeys = compareArrays(keysA, keysB);
  if (byKeys !== 0) return byKeys;
  for (const key of keysA) {
    const order = compareValues(a[key] ?? null, b[key] ?? null);
    if (order !== 0) return order;
  }
  return 0;
}

export function sortedKeys(object: JsonObject): string[] {
  return Object.keys(object).sort(compareStrings);
}

export function equalValues(a: JsonValue, b: JsonValue): boolean {
  return compareValues(a, b) === 0;
}

/**
 * jq's compact JSON text of a value, where it is the same as JSON.stringify's: strings without
 * control characters or DEL, numbers that are integers jq prints the same way. Anything else defers.
 */
export function toJsonText(value: JsonValue): string {
  checkPrintable(value);
  return JSON.stringify(value);
}

function checkPrintable(value: JsonValue): void {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) throw new Defer();
  } else if (typeof value === 'string') {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]|[\ud800-\udfff]/u.test(value)) throw new Defer();
  } else if (Array.isArray(value)) for (const item of value) checkPrintable(item);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      checkPrintable(key);
      checkPrintable(item);
    }
}

/** jq's `+`: null is the identity; numbers add, strings, arrays and objects join; anything else is an error. */
export function addValues(a: JsonValue, b: JsonValue): JsonValue {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isJsonObject(a) && isJsonObject(b)) return { ...a, ...b };
  throw new JqError();
}
