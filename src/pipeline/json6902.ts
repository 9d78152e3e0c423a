import { KaddonError } from '../core/errors.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';

/** A patch that does not apply to its object: which operation or field, and why. */
export class PatchError extends KaddonError {
  readonly code = 'patch-failed';
}

const missingPathHint =
  "Check the path against the object: every segment but the last must exist (escape '/' as '~1', '~' as '~0').";
const indexHint = "Use an index inside the list, or '-' to append.";

type OperationName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

interface Operation {
  readonly op: OperationName;
  readonly fields: JsonObject;
}

/** A container and the (unescaped) key an operation's path ends in. */
interface Location {
  readonly container: JsonObject | JsonValue[];
  readonly key: string;
}

type Handler = (doc: JsonObject, operation: Operation) => JsonObject;

const handlers = { add, remove, replace, move, copy, test } satisfies Record<OperationName, Handler>;

/**
 * Applies RFC 6902 operations the way kustomize v5.5.0 does (evanphx/json-patch v4, evanphx/json-patch v4),
 * to a copy of `target`.
 */
export function applyJson6902(target: JsonObject, operations: readonly JsonValue[]): JsonObject {
  let doc = deepClone(target);
  const addedAnnotations = ensureAnnotations(doc);
  operations.forEach((raw, index) => {
    const operation = parseOperation(raw, index);
    doc = handlers[operation.op](doc, operation);
  });
  if (addedAnnotations) dropEmptyAnnotations(doc);
  return doc;
}

/**
 * Inside kustomize every object carries build annotations while patches run, so `/metadata/annotations/x`
 * can be added to an object that has none [patch-01]; the empty map is dropped again afterwards.
 */
function ensureAnnotations(doc: JsonObject): boolean {
  const metadata = doc.metadata;
  if (!isJsonObject(metadata) || Object.hasOwn(metadata, 'annotations')) return false;
  metadata.annotations = {};
  return true;
}

function dropEmptyAnnotations(doc: JsonObject): void {
  const metadata = doc.metadata;
  if (
    isJsonObject(metadata) &&
    isJsonObject(metadata.annotations) &&
    Object.keys(metadata.annotations).length === 0
  ) {
    delete metadata.annotations;
  }
}

function parseOperation(raw: JsonValue, index: number): Operation {
  if (!isJsonObject(raw)) {
    throw new PatchError(
      `JSON patch operation ${index + 1} is not an object`,
      'Write each operation as {op, path, value}.',
    );
  }
  const op = raw.op;
  if (typeof op === 'string' && Object.hasOwn(handlers, op)) return { op: op as OperationName, fields: raw };
  throw new PatchError(
    `unexpected kind: ${typeof op === 'string' ? op : 'unknown'}`,
    'Use one of the JSON patch operations add, remove, replace, move, copy and test.',
  );
}

function pathOf(operation: Operation, field: 'path' | 'from'): string {
  const value = operation.fields[field];
  if (typeof value === 'string') return value;
  throw new PatchError(
    `${operation.op} operation failed to decode ${field}`,
    `Give the ${operation.op} operation a '${field}' string such as /spec/replicas.`,
  );
}

/** evanphx v4 stores an absent value as null. */
function valueOf(operation: Operation): JsonValue {
  const value = operation.fields.value;
  return value === undefined ? null : deepClone(value);
}

function add(doc: JsonObject, operation: Operation): JsonObject {
  const path = pathOf(operation, 'path');
  const target = locate(doc, path, 'add operation does not apply: doc is missing path');
  insert(target, valueOf(operation), 'add', path);
  return doc;
}

function remove(doc: JsonObject, operation: Operation): JsonObject {
  const path = pathOf(operation, 'path');
  removeAt(locate(doc, path, 'remove operation does not apply: doc is missing path'), 'remove', path);
  return doc;
}

/** Removes before it looks up the destination, as evanphx does. */
function move(doc: JsonObject, operation: Operation): JsonObject {
  const from = pathOf(operation, 'from');
  const source = locate(doc, from, 'move operation does not apply: doc is missing from path');
  const value = read(source, 'move', from);
  removeAt(source, 'move', from);
  const path = pathOf(operation, 'path');
  const target = locate(doc, path, 'move operation does not apply: doc is missing destination path');
  insert(target, value ?? null, 'move', path);
  return doc;
}

/** A missing object key copies as null in v4. */
function copy(doc: JsonObject, operation: Operation): JsonObject {
  const from = pathOf(operation, 'from');
  const source = locate(doc, from, 'copy operation does not apply: doc is missing from path');
  const value = read(source, 'copy', from);
  const path = pathOf(operation, 'path');
  const target = locate(doc, path, 'copy operation does not apply: doc is missing destination path');
  insert(target, value === undefined ? null : deepClone(value), 'copy', path);
  return doc;
}

function replace(doc: JsonObject, operation: Operation): JsonObject {
  const path = pathOf(operation, 'path');
  const value = valueOf(operation);
  if (path === '') {
    if (isJsonObject(value)) return value;
    throw new PatchError(
      'replace operation value must be an object',
      'Replace the whole object with an object.',
    );
  }
  const location = locate(doc, path, 'replace operation does not apply: doc is missing path');
  // v4 lets replace create a missing object key (kustomize #4380); only a bad index fails.
  if (Array.isArray(location.container)) {
    const index = existingIndex(location.container, location.key);
    if (index === undefined)
      throw new PatchError(`replace operation does not apply: doc is missing key: ${path}`, indexHint);
    location.container[index] = value;
  } else {
    setKey(location.container, location.key, value);
  }
  return doc;
}

function test(doc: JsonObject, operation: Operation): JsonObject {
  const path = pathOf(operation, 'path');
  const actual =
    path === ''
      ? doc
      : read(locate(doc, path, 'test operation does not apply: is missing path'), 'test', path);
  const expected = operation.fields.value;
  const passes =
    expected !== undefined &&
    (actual === undefined || actual === null ? expected === null : matches(actual, expected));
  if (!passes) {
    throw new PatchError(
      `testing value ${path} failed: test failed`,
      'The object holds another value at that path: correct the test value or the patch order.',
    );
  }
  return doc;
}

/** evanphx v4 equality: an object passes when every key it has is in the test value and equal. */
function matches(actual: JsonValue, expected: JsonValue): boolean {
  if (actual === null || expected === null) return actual === expected;
  if (Array.isArray(actual)) {
    return (
      Array.isArray(expected) &&
      actual.length === expected.length &&
      actual.every((item, i) => matches(item, expected[i] ?? null))
    );
  }
  if (isJsonObject(actual)) {
    return (
      isJsonObject(expected) &&
      Object.keys(actual).every(
        (key) => Object.hasOwn(expected, key) && matches(actual[key] ?? null, expected[key] ?? null),
      )
    );
  }
  return actual === expected;
}

/**
 * The container of the last path segment. evanphx v4 ignores whatever precedes the first '/', walks
 * the middle segments through maps and list indices, and fails on a missing, null or scalar step.
 */
function locate(doc: JsonObject, path: string, problem: string): Location {
  const segments = path.split('/');
  let node: JsonObject | JsonValue[] | undefined = segments.length < 2 ? undefined : doc;
  for (const segment of segments.slice(1, -1)) {
    if (node === undefined) break;
    node = asContainer(child(node, unescapeSegment(segment)));
  }
  if (node === undefined) throw new PatchError(`${problem}: ${path}`, missingPathHint);
  return { container: node, key: unescapeSegment(segments.at(-1) ?? '') };
}

function asContainer(value: JsonValue | undefined): JsonObject | JsonValue[] | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}

function child(node: JsonObject | JsonValue[], key: string): JsonValue | undefined {
  if (!Array.isArray(node)) return Object.hasOwn(node, key) ? node[key] : undefined;
  const index = existingIndex(node, key);
  return index === undefined ? undefined : node[index];
}

/** RFC 6901: `~1` is `/`, `~0` is `~`, decoded in one pass. */
function unescapeSegment(segment: string): string {
  return segment.replace(/~[01]/g, (escape) => (escape === '~1' ? '/' : '~'));
}

/** The value at a location; a missing object key reads as undefined, a bad list index fails. */
function read(location: Location, op: string, path: string): JsonValue | undefined {
  const { container, key } = location;
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  const index = existingIndex(container, key);
  if (index === undefined)
    throw new PatchError(`error in ${op} for path: ${path}: invalid index '${key}'`, indexHint);
  return container[index];
}

function insert(location: Location, value: JsonValue, op: string, path: string): void {
  const { container, key } = location;
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  const index = key === '-' ? container.length : listIndex(key, container.length + 1);
  if (index === undefined)
    throw new PatchError(`error in ${op} for path: ${path}: invalid index '${key}'`, indexHint);
  container.splice(index, 0, value);
}

function removeAt(location: Location, op: string, path: string): void {
  const { container, key } = location;
  if (Array.isArray(container)) {
    const index = existingIndex(container, key);
    if (index === undefined)
      throw new PatchError(`error in ${op} for path: ${path}: invalid index '${key}'`, indexHint);
    container.splice(index, 1);
    return;
  }
  if (!Object.hasOwn(container, key)) {
    throw new PatchError(
      `error in ${op} for path: ${path}: unable to remove nonexistent key: ${key}`,
      missingPathHint,
    );
  }
  Reflect.deleteProperty(container, key);
}

function existingIndex(list: readonly JsonValue[], key: string): number | undefined {
  return listIndex(key, list.length);
}

/** Go strconv.Atoi syntax; negative indices count from the end (SupportNegativeIndices). */
function listIndex(key: string, size: number): number | undefined {
  if (!/^[+-]?\d+$/.test(key)) return undefined;
  const index = Number(key);
  if (index >= size || index < -size) return undefined;
  return index < 0 ? index + size : index;
}

function setKey(container: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
}
