import { isImplicitNull } from '../core/yaml/implicit-null.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { PatchError } from './json6902.ts';
import { fieldSchema, schemaForResource, type FieldSchema } from './strategic-merge-schema.ts';

/**
 * kustomize's strategic merge patch: kyaml merge2's walk over the object and the patch (kustomize's
 * kyaml/yaml/merge2), not apimachinery's. The walk works on copies and mutates them in place, because kyaml's
 * list algorithm depends on merged elements staying the same nodes inside the object's list.
 */

/** A walk result; undefined clears the field, as kyaml's ClearNode does. */
type Merged = JsonValue | undefined;
type Directive = 'merge' | 'replace' | 'delete';
type Shape = 'map' | 'list' | 'scalar';

/** One walk step: the node merged into and the patch node read from (the same node when adding). */
interface Sources<T> {
  readonly base: T;
  readonly other: T | undefined;
}

interface ListMerge extends Sources<JsonValue[]> {
  readonly items: FieldSchema | undefined;
  readonly path: string;
}

const DIRECTIVE = '$patch';

/**
 * Merges one patch document into a copy of `target`; null when the patch deletes the whole object
 * (`$patch: delete`). The caller keeps the target's name, namespace and kind.
 */
export function strategicMerge(target: JsonObject, patch: JsonObject): JsonObject | null {
  const merged = walk(deepClone(target), deepClone(patch), undefined, '');
  return isJsonObject(merged) ? merged : null;
}

function walk(dest: Merged, patch: Merged, schema: FieldSchema | undefined, path: string): Merged {
  // Without a schema from the parent, kyaml looks one up by the node's own apiVersion and kind.
  const known = schema ?? embeddedSchema(dest) ?? embeddedSchema(patch);
  const shape = shapeOf(dest) ?? shapeOf(patch);
  const patchShape = shapeOf(patch);
  if (shape && patchShape && patchShape !== shape) {
    throw new PatchError(
      `field '${path}' is a ${shape} in the object but a ${patchShape} in the patch`,
      'Give the field the same type in the patch as in the object.',
    );
  }
  if (shape === 'list' && known?.mergeKeys) return mergeList(dest, patch, known, path);
  if (shape === 'list' || shape === 'scalar') return patch === undefined ? dest : patch;
  return mergeMap(dest, patch, known, path);
}

function mergeMap(dest: Merged, patch: Merged, schema: FieldSchema | undefined, path: string): Merged {
  const sources = mapSources(dest, patch, path);
  if (!sources) return undefined;
  const { base, other } = sources;
  for (const key of fieldNames(base, other)) {
    const from = other ? own(other, key) : undefined;
    // kyaml keeps a null of the object that the patch does not mention (`creationTimestamp: null`),
    // but clears a field written with no value (`nodeAffinity: {preferred…:}` becomes `{}`).
    if (from === undefined && own(base, key) === null && !isImplicitNull(base, key)) continue;
    const merged = walk(own(base, key), from, fieldSchema(schema, key), path ? `${path}.${key}` : key);
    if (merged === undefined || merged === null) Reflect.deleteProperty(base, key);
    else setField(base, key, merged);
  }
  return base;
}

function mapSources(dest: Merged, patch: Merged, path: string): Sources<JsonObject> | undefined {
  if (!isJsonObject(dest)) {
    if (!isJsonObject(patch) || takeMapDirective(patch, path, true) === 'delete') return undefined;
    return { base: patch, other: patch };
  }
  if (patch === undefined) return { base: dest, other: undefined };
  if (!isJsonObject(patch)) return undefined;
  const directive = takeMapDirective(patch, path, false);
  if (directive === 'delete') return undefined;
  return directive === 'replace' ? { base: patch, other: patch } : { base: dest, other: patch };
}

/**
 * Reads and removes a map's `$patch`; `lenient` when kyaml ignores an unknown one (nothing to merge into).
 */
function takeMapDirective(patch: JsonObject, path: string, lenient: boolean): Directive {
  if (!Object.hasOwn(patch, DIRECTIVE)) return 'merge';
  const directive = asDirective(patch[DIRECTIVE]);
  if (directive) {
    Reflect.deleteProperty(patch, DIRECTIVE);
    return directive;
  }
  if (lenient) return 'merge';
  throw unknownStrategy(patch[DIRECTIVE], path);
}

function mergeList(dest: Merged, patch: Merged, schema: FieldSchema, path: string): Merged {
  const sources = listSources(dest, patch, path);
  if (!sources) return undefined;
  const list: ListMerge = { ...sources, items: schema.items, path };
  const keys = schema.mergeKeys ?? [];
  if (keys.length === 0) return setElements(list, scalarTuples(sources), ['']);
  return setElements(list, keyTuples(sources, keys), keys);
}

/** Unlike a map, a list the object lacks is taken as it is, `$patch` elements included. */
function listSources(dest: Merged, patch: Merged, path: string): Sources<JsonValue[]> | undefined {
  if (!Array.isArray(dest)) return Array.isArray(patch) ? { base: patch, other: patch } : undefined;
  if (patch === undefined) return { base: dest, other: undefined };
  if (!Array.isArray(patch)) return undefined;
  const directive = takeListDirective(patch, path);
  if (directive === 'delete') return undefined;
  return directive === 'replace' ? { base: patch, other: patch } : { base: dest, other: patch };
}

/** `- $patch: replace` alone in an element directs the list; with other fields it directs that element. */
function takeListDirective(list: JsonValue[], path: string): Directive {
  const holder = list.find((item) => isJsonObject(item) && Object.hasOwn(item, DIRECTIVE));
  if (!isJsonObject(holder) || Object.keys(holder).length > 1) return 'merge';
  const directive = asDirective(holder[DIRECTIVE]);
  if (!directive) throw unknownStrategy(holder[DIRECTIVE], path);
  setElement(list, undefined, [DIRECTIVE], [directive], path);
  return directive;
}

/**
 * kyaml's associative merge: every key tuple (patch elements first) is merged into a fresh list, then the
 * object's surviving elements are set into it by key, which decides the order (kustomize's
 * kyaml/yaml/merge2).
 */
function setElements(list: ListMerge, tuples: string[][], keys: readonly string[]): JsonValue[] {
  if (keys.length > 1) unifyPartialTuples(tuples);
  const added: JsonValue[] = [];
  let effectiveKeys = keys;
  for (const tuple of tuples) {
    const [validKeys, validValues] = presentKeys(tuples, tuple, keys);
    effectiveKeys = validKeys;
    mergeElement(list, added, validKeys, validValues);
  }
  return tuples.length > 0 ? appendOriginals(added, list.base, effectiveKeys, list.path) : list.base;
}

function mergeElement(list: ListMerge, added: JsonValue[], keys: string[], values: string[]): void {
  const [findKeys, findValues] = presentKeys([values], values, keys);
  const original = findElement(list.base, findKeys, findValues);
  const patched = list.other && findElement(list.other, findKeys, findValues);
  const at = `${list.path}[${keys.map((key, i) => (key ? `${key}=` : '') + (values[i] ?? '')).join(',')}]`;
  const merged = walk(original, patched, list.items, at);
  if (merged === undefined || merged === null || isEmptyMap(merged)) {
    setElement(list.base, undefined, keys, values, list.path);
  } else {
    setElement(added, merged, keys, values, list.path);
  }
}

/** Key tuples from the patch, then the object: kyaml's elementValues with "prepend" merge options. */
function keyTuples(sources: Sources<JsonValue[]>, keys: readonly string[]): string[][] {
  return distinctTuples(sourceLists(sources).map((item) => keys.map((key) => keyText(fieldOf(item, key)))));
}

function scalarTuples(sources: Sources<JsonValue[]>): string[][] {
  return distinctTuples(sourceLists(sources).map((item) => [nodeText(item)]));
}

function sourceLists({ base, other }: Sources<JsonValue[]>): JsonValue[] {
  return [...(other ?? []), ...base];
}

function distinctTuples(tuples: string[][]): string[][] {
  const seen = new Set<string>();
  return tuples.filter((tuple) => {
    const id = JSON.stringify(tuple);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Tuples that agree wherever both are non-empty become one (kyaml's mergeValues, done in place). */
function unifyPartialTuples(tuples: string[][]): void {
  tuples.forEach((first, i) => {
    tuples.forEach((second, j) => {
      const unified = unify(first, second);
      if (!unified) return;
      tuples[i] = unified;
      tuples[j] = unified;
    });
  });
}

function unify(a: readonly string[], b: readonly string[]): string[] | undefined {
  let common = false;
  const out: string[] = [];
  for (const [i, x] of a.entries()) {
    const y = b[i] ?? '';
    if (x === y) common = true;
    else if (x !== '' && y !== '') return undefined;
    out.push(x === '' ? y : x);
  }
  return common ? out : undefined;
}

/** A key field empty in every tuple is dropped (kyaml's validateKeys); if all are, all are kept. */
function presentKeys(
  tuples: readonly (readonly string[])[],
  tuple: readonly string[],
  keys: readonly string[],
): readonly [string[], string[]] {
  const kept = keys.flatMap((_, i) => (tuples.some((t) => (t[i] ?? '') !== '') ? [i] : []));
  if (kept.length === 0) return [[...keys], [...tuple]];
  return [kept.map((i) => keys[i] ?? ''), kept.map((i) => tuple[i] ?? '')];
}

/** The first element with every key at its value (kyaml's ElementMatcher). */
function findElement(
  list: readonly JsonValue[],
  keys: readonly string[],
  values: readonly string[],
): JsonValue | undefined {
  if (keys[0] === '') return list.find((item) => nodeText(item) === values[0]);
  return list.find(
    (item) =>
      isJsonObject(item) &&
      keys.every((key, i) => Object.hasOwn(item, key) && nodeText(item[key]) === values[i]),
  );
}

/** Sets the object's elements into `added` by key: kyaml's appendListNode in "prepend" mode. */
function appendOriginals(
  added: JsonValue[],
  originals: readonly JsonValue[],
  keys: readonly string[],
  path: string,
): JsonValue[] {
  for (const element of originals) {
    if (keys[0] === '') {
      setElement(added, element, [''], [nodeText(element)], path);
      continue;
    }
    const values: string[] = [];
    for (const key of keys) {
      const value = keyField(element, key, path);
      if (value === undefined) added.push(fresh(added, element));
      else values.push(nodeText(value));
    }
    // With several keys an equal element is removed first so that the original lands at the end.
    if (keys.length > 1) setElement(added, undefined, keys, values, path);
    setElement(added, element, keys, values, path);
  }
  return added;
}

/**
 * kyaml's ElementSetter: replaces every element matching the keys with `element` (removes them when
 * undefined), appends it when none matched, and drops null and empty elements on the way.
 */
function setElement(
  list: JsonValue[],
  element: JsonValue | undefined,
  keys: readonly string[],
  values: readonly string[],
  path: string,
): void {
  const mapSetter = keys[0] !== '' && (values[0] ?? '') !== '';
  const next: JsonValue[] = [];
  let found = false;
  for (const item of list) {
    if (item === null || isEmptyMap(item)) continue;
    if (!isJsonObject(item) && mapSetter) next.push(item);
    else if (!matches(item, keys, values, path)) {
      if (values.length > 0) next.push(item);
    } else {
      found = true;
      if (element !== undefined) next.push(fresh(next, element));
    }
  }
  list.splice(0, list.length, ...next);
  if (element !== undefined && element !== null && !found) list.push(fresh(list, element));
}

/** A key without a value reuses the previous key's verdict, as kyaml's loop does. */
function matches(item: JsonValue, keys: readonly string[], values: readonly string[], path: string): boolean {
  let matched = false;
  for (const [j, key] of keys.entries()) {
    const value = values[j];
    if (value !== undefined) matched = fieldMatches(item, key, value, path);
    if (!matched) return false;
  }
  return true;
}

function fieldMatches(item: JsonValue, key: string, value: string, path: string): boolean {
  if (key === '') {
    if (typeof item === 'object') throw mixedList(path);
    return nodeText(item) === value;
  }
  if (!isJsonObject(item)) throw mixedList(path);
  return Object.hasOwn(item, key) && (value === '' || nodeText(item[key]) === value);
}

function keyField(element: JsonValue, key: string, path: string): JsonValue | undefined {
  if (element === null) return undefined;
  if (!isJsonObject(element)) throw mixedList(path);
  return own(element, key);
}

/** The same object must not appear twice in the result. */
function fresh(list: readonly JsonValue[], element: JsonValue): JsonValue {
  return typeof element === 'object' && element !== null && list.includes(element)
    ? deepClone(element)
    : element;
}

function embeddedSchema(value: Merged): FieldSchema | undefined {
  if (!isJsonObject(value)) return undefined;
  const { apiVersion, kind } = value;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) return undefined;
  return schemaForResource(apiVersion, kind);
}

function shapeOf(value: Merged): Shape | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return 'list';
  return isJsonObject(value) ? 'map' : 'scalar';
}

function asDirective(value: JsonValue | undefined): Directive | undefined {
  const text = nodeText(value);
  return text === 'merge' || text === 'replace' || text === 'delete' ? text : undefined;
}

function fieldNames(base: JsonObject, other: JsonObject | undefined): string[] {
  return [...new Set([...Object.keys(base), ...Object.keys(other ?? {})])].sort();
}

function fieldOf(item: JsonValue, key: string): JsonValue | undefined {
  return isJsonObject(item) ? own(item, key) : undefined;
}

function own(map: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function setField(map: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

function isEmptyMap(value: JsonValue): boolean {
  return isJsonObject(value) && Object.keys(value).length === 0;
}

/** A merge-key value as kyaml reads it for matching: empty, null and non-scalar values read as ''. */
function keyText(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** A YAML node's scalar text: null is 'null', maps and lists have none. */
function nodeText(value: JsonValue | undefined): string {
  return value === null ? 'null' : keyText(value);
}

function unknownStrategy(value: JsonValue | undefined, path: string): PatchError {
  return new PatchError(
    `unknown patch strategy '${nodeText(value)}'${path ? ` at ${path}` : ''}`,
    "Use '$patch: merge', '$patch: replace' or '$patch: delete'.",
  );
}

function mixedList(path: string): PatchError {
  return new PatchError(
    `list '${path}' mixes maps and scalars, so its elements cannot be matched by merge key`,
    'Make every element of the list the same type.',
  );
}
