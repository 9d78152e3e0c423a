import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import {
  addValues,
  codePoints,
  compareValues,
  Defer,
  equalValues,
  isTruthy,
  JqError,
  sortedKeys,
  toJsonText,
  typeOf,
} from './jq-values.ts';
import type { Node } from './parse-filter.ts';

type Evaluate = (node: Node, input: JsonValue) => JsonValue[];
type Builtin = (input: JsonValue, args: readonly Node[], evaluate: Evaluate) => JsonValue[];

/** jq's builtins the subset implements, by name and number of arguments (docs/hooks.md "jq"). */
const BUILTINS: Record<string, Builtin> = {
  'empty/0': () => [],
  'not/0': (input) => [!isTruthy(input)],
  'length/0': (input) => [length(input)],
  'type/0': (input) => [typeOf(input)],
  'keys/0': (input) => [keys(input, true)],
  'keys_unsorted/0': (input) => [keys(input, false)],
  'values/0': (input) => (input === null ? [] : [input]),
  'has/1': (input, [key], evaluate) => each(evaluate, key, input, (name) => [has(input, name)]),
  'select/1': (input, [condition], evaluate) =>
    evaluateArg(evaluate, condition, input).flatMap((value) => (isTruthy(value) ? [input] : [])),
  'map/1': (input, [body], evaluate) => [iterate(input).flatMap((item) => evaluateArg(evaluate, body, item))],
  'map_values/1': (input, [body], evaluate) => [
    mapValues(input, (value) => evaluateArg(evaluate, body, value)),
  ],
  'to_entries/0': (input) => [toEntries(input)],
  'from_entries/0': (input) => [fromEntries(input)],
  'with_entries/1': (input, [body], evaluate) => {
    const entries = toEntries(input).flatMap((entry) => evaluateArg(evaluate, body, entry));
    return [fromEntries(entries)];
  },
  'add/0': (input) => [iterate(input).reduce<JsonValue>((sum, item) => addValues(sum, item), null)],
  'any/0': (input) => [iterate(input).some(isTruthy)],
  'all/0': (input) => [iterate(input).every(isTruthy)],
  'any/1': (input, [test], evaluate) => [
    iterate(input).some((item) => evaluateArg(evaluate, test, item).some(isTruthy)),
  ],
  'all/1': (input, [test], evaluate) => [
    iterate(input).every((item) => evaluateArg(evaluate, test, item).every(isTruthy)),
  ],
  'sort/0': (input) => [arrayOf(input).slice().sort(compareValues)],
  'sort_by/1': (input, [key], evaluate) => [
    sortBy(arrayOf(input), (item) => evaluateArg(evaluate, key, item)),
  ],
  'unique/0': (input) => [dedupe(arrayOf(input).slice().sort(compareValues))],
  'min/0': (input) => [extreme(arrayOf(input), -1)],
  'max/0': (input) => [extreme(arrayOf(input), 1)],
  'reverse/0': (input) => [reverse(input)],
  'first/0': (input) => [indexArray(input, 0)],
  'last/0': (input) => [indexArray(input, -1)],
  'first/1': (input, [body], evaluate) => evaluateArg(evaluate, body, input).slice(0, 1),
  'tostring/0': (input) => [typeof input === 'string' ? input : toJsonText(input)],
  'tojson/0': (input) => [toJsonText(input)],
  'tonumber/0': (input) => [toNumber(input)],
  'ascii_downcase/0': (input) => [stringOf(input).replace(/[A-Z]/g, (char) => char.toLowerCase())],
  'ascii_upcase/0': (input) => [stringOf(input).replace(/[a-z]/g, (char) => char.toUpperCase())],
  'startswith/1': (input, [prefix], evaluate) =>
    each(evaluate, prefix, input, (value) => [stringsOf(input, value, (a, b) => a.startsWith(b))]),
  'endswith/1': (input, [suffix], evaluate) =>
    each(evaluate, suffix, input, (value) => [stringsOf(input, value, (a, b) => a.endsWith(b))]),
  'ltrimstr/1': (input, [prefix], evaluate) =>
    each(evaluate, prefix, input, (value) => [
      trim(input, value, (text, prefix) => (text.startsWith(prefix) ? text.slice(prefix.length) : text)),
    ]),
  'rtrimstr/1': (input, [suffix], evaluate) =>
    each(evaluate, suffix, input, (value) => [
      trim(input, value, (text, suffix) =>
        text.endsWith(suffix) && suffix !== '' ? text.slice(0, text.length - suffix.length) : text,
      ),
    ]),
  'split/1': (input, [separator], evaluate) =>
    each(evaluate, separator, input, (value) => [split(input, value)]),
  'join/1': (input, [separator], evaluate) =>
    each(evaluate, separator, input, (value) => [join(input, value)]),
  'contains/1': (input, [other], evaluate) =>
    each(evaluate, other, input, (value) => [contains(input, value)]),
  'index/1': (input, [needle], evaluate) => each(evaluate, needle, input, (value) => [indexIn(input, value)]),
  'arrays/0': (input) => (Array.isArray(input) ? [input] : []),
  'objects/0': (input) => (isJsonObject(input) ? [input] : []),
  'strings/0': (input) => (typeof input === 'string' ? [input] : []),
  'numbers/0': (input) => (typeof input === 'number' ? [input] : []),
  'booleans/0': (input) => (typeof input === 'boolean' ? [input] : []),
  'nulls/0': (input) => (input === null ? [input] : []),
  'iterables/0': (input) => (Array.isArray(input) || isJsonObject(input) ? [input] : []),
  'scalars/0': (input) => (Array.isArray(input) || isJsonObject(input) ? [] : [input]),
};

export function callBuiltin(
  name: string,
  args: readonly Node[],
  input: JsonValue,
  evaluate: Evaluate,
): JsonValue[] {
  const builtin = BUILTINS[`${name}/${String(args.length)}`];
  if (!builtin) throw new Defer();
  return builtin(input, args, evaluate);
}

/** Whether the subset knows `name` with `arity` arguments (the parser asks, to leave others to jq). */
export function isBuiltin(name: string, arity: number): boolean {
  return `${name}/${String(arity)}` in BUILTINS;
}

function evaluateArg(evaluate: Evaluate, node: Node | undefined, input: JsonValue): JsonValue[] {
  if (!node) throw new Defer();
  return evaluate(node, input);
}

/** A builtin whose argument is evaluated on the input, once per output. */
function each(
  evaluate: Evaluate,
  node: Node | undefined,
  input: JsonValue,
  run: (value: JsonValue) => JsonValue[],
): JsonValue[] {
  return evaluateArg(evaluate, node, input).flatMap(run);
}

function length(input: JsonValue): number {
  if (input === null) return 0;
  if (typeof input === 'boolean') throw new JqError();
  if (typeof input === 'number') return Math.abs(input);
  if (typeof input === 'string') return codePoints(input).length;
  if (Array.isArray(input)) return input.length;
  return Object.keys(input).length;
}

function keys(input: JsonValue, sorted: boolean): JsonValue[] {
  if (Array.isArray(input)) return input.map((_, index) => index);
  if (!isJsonObject(input)) throw new JqError();
  return sorted ? sortedKeys(input) : Object.keys(input);
}

function has(input: JsonValue, key: JsonValue): boolean {
  if (isJsonObject(input) && typeof key === 'string') return Object.hasOwn(input, key);
  if (Array.isArray(input) && typeof key === 'number') {
    if (!Number.isInteger(key)) throw new Defer();
    return key >= 0 && key < input.length;
  }
  throw new JqError();
}

function iterate(input: JsonValue): JsonValue[] {
  if (Array.isArray(input)) return input;
  if (isJsonObject(input)) return Object.values(input);
  throw new JqError();
}

function arrayOf(input: JsonValue): JsonValue[] {
  if (!Array.isArray(input)) throw new JqError();
  return input;
}

function stringOf(input: JsonValue): string {
  if (typeof input !== 'string') throw new JqError();
  return input;
}

/** `map_values(f)`: each value replaced by f's first output, the entry dropped when there is none. */
function mapValues(input: JsonValue, run: (value: JsonValue) => JsonValue[]): JsonValue {
  if (Array.isArray(input)) throw new Defer();
  if (!isJsonObject(input)) throw new JqError();
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(input)) {
    const outputs = run(value);
    if (outputs.length > 0) setKey(result, key, outputs[0] ?? null);
  }
  return result;
}

function toEntries(input: JsonValue): JsonValue[] {
  if (!isJsonObject(input)) throw new Defer();
  return Object.entries(input).map(([key, value]) => ({ key, value }));
}

/** `from_entries` of `{key, value}` objects with string keys; jq's other spellings are left to jq. */
function fromEntries(input: JsonValue): JsonObject {
  if (!Array.isArray(input)) throw new Defer();
  const result: JsonObject = {};
  for (const entry of input) {
    if (!isJsonObject(entry) || typeof entry.key !== 'string' || !Object.hasOwn(entry, 'value'))
      throw new Defer();
    setKey(result, entry.key, entry.value ?? null);
  }
  return result;
}

/** `sort_by(f)`: stable, by the array of f's outputs, as jq compares `[f]`. */
function sortBy(items: readonly JsonValue[], key: (item: JsonValue) => JsonValue[]): JsonValue[] {
  return items
    .map((item, index) => ({ item, index, key: key(item) }))
    .sort((a, b) => compareValues(a.key, b.key) || a.index - b.index)
    .map(({ item }) => item);
}

function dedupe(sorted: readonly JsonValue[]): JsonValue[] {
  return sorted.filter((item, index) => index === 0 || !equalValues(item, sorted[index - 1] ?? null));
}

/** `min` (the first smallest) and `max` (the last largest), null for an empty array. */
function extreme(items: readonly JsonValue[], direction: 1 | -1): JsonValue {
  let best: JsonValue | undefined;
  for (const item of items)
    if (
      best === undefined ||
      (direction === 1 ? compareValues(item, best) >= 0 : compareValues(item, best) < 0)
    )
      best = item;
  return best ?? null;
}

function reverse(input: JsonValue): JsonValue {
  if (input === null) return [];
  if (Array.isArray(input)) return input.slice().reverse();
  throw new Defer();
}

function indexArray(input: JsonValue, index: number): JsonValue {
  if (input === null) return null;
  if (!Array.isArray(input)) throw new JqError();
  return input.at(index) ?? null;
}

/** A string that is a JSON number; anything else (jq's own parsing of the rest) is left to jq. */
function toNumber(input: JsonValue): JsonValue {
  if (typeof input === 'number') return input;
  if (typeof input === 'string' && /^-?(?:0|[1-9]\d{0,14})$/.test(input)) return Number(input);
  if (typeof input === 'string') throw new Defer();
  throw new JqError();
}

function stringsOf(input: JsonValue, value: JsonValue, test: (a: string, b: string) => boolean): boolean {
  if (typeof input !== 'string' || typeof value !== 'string') throw new JqError();
  return test(input, value);
}

/** `ltrimstr`/`rtrimstr` of strings; jq 1.8 decides for other values (it reports some as errors). */
function trim(input: JsonValue, affix: JsonValue, run: (text: string, affix: string) => string): JsonValue {
  if (typeof input !== 'string' || typeof affix !== 'string') throw new Defer();
  return run(input, affix);
}

function split(input: JsonValue, separator: JsonValue): JsonValue {
  if (typeof input !== 'string' || typeof separator !== 'string') throw new JqError();
  if (separator === '') throw new Defer();
  if (input === '') return [];
  return input.split(separator);
}

function join(input: JsonValue, separator: JsonValue): JsonValue {
  if (!Array.isArray(input)) throw new Defer();
  if (typeof separator !== 'string') throw new Defer();
  if (input.length === 0) return '';
  return input
    .map((item) => {
      if (item === null) return '';
      if (typeof item === 'string') return item;
      if (typeof item === 'boolean') return String(item);
      if (typeof item === 'number') return toJsonText(item);
      throw new Defer();
    })
    .join(separator);
}

/** jq's `contains`: substrings, every element of b in some element of a, keys recursively. */
function contains(a: JsonValue, b: JsonValue): boolean {
  if (typeOf(a) !== typeOf(b)) throw new JqError();
  if (typeof a === 'string' && typeof b === 'string') {
    if (a.includes('\u0000') || b.includes('\u0000')) throw new Defer();
    return a.includes(b);
  }
  if (Array.isArray(a) && Array.isArray(b))
    return b.every((wanted) => a.some((item) => containsQuiet(item, wanted)));
  if (isJsonObject(a) && isJsonObject(b))
    return Object.entries(b).every(
      ([key, wanted]) => Object.hasOwn(a, key) && containsQuiet(a[key] ?? null, wanted),
    );
  // true and false are two kinds to jq: `true | contains(false)` is an error.
  if (typeof a === 'boolean' && a !== b) throw new JqError();
  return equalValues(a, b);
}

/** Inside arrays and objects, values of other kinds (true and false too) are not contained. */
function containsQuiet(a: JsonValue, b: JsonValue): boolean {
  if (typeOf(a) !== typeOf(b) || (typeof a === 'boolean' && a !== b)) return false;
  return contains(a, b);
}

/** `index(x)` on an array: the first position of x; strings (byte or code point offsets) are jq's. */
function indexIn(input: JsonValue, needle: JsonValue): JsonValue {
  if (input === null) return null;
  if (!Array.isArray(input) || Array.isArray(needle)) throw new Defer();
  const at = input.findIndex((item) => equalValues(item, needle));
  return at < 0 ? null : at;
}

/** Sets an own property, `__proto__` included (assignment would change the prototype). */
export function setKey(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
