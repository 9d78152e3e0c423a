import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';

/** One object of a build's output, keyed the way the comparison sorts it. */
interface KeyedObject {
  readonly key: string;
  /** Kind and name without namespace or hash suffix: pairs an object whose key kaddon got wrong. */
  readonly looseKey: string;
  readonly obj: unknown;
}

/** One way the builds disagree on an object; `signature` groups the same difference across objects. */
interface ObjectDifference {
  readonly signature: string;
  readonly text: string;
}

/** How two builds' outputs differ: how many objects, and the first example of each difference. */
export interface StreamDifference {
  readonly differing: number;
  readonly examples: readonly string[];
}

const MAX_EXAMPLES = 8;
/** The content hash kustomize appends to generated ConfigMap and Secret names. */
const HASH_SUFFIX = /-[a-z0-9]{10}$/;

/**
 * Parses a YAML stream of objects with YAML 1.1 rules, as Kubernetes' own reader does, so that an
 * unquoted `on` or `0755` counts as the boolean or number a cluster would see.
 */
export function parseObjectStream(text: string, tool: string): unknown[] {
  const objects: unknown[] = [];
  for (const doc of parseAllDocuments(text, { version: '1.1', uniqueKeys: false })) {
    const error = doc.errors[0];
    if (error)
      throw new Error(`${tool} printed YAML that does not parse: ${error.message}`, { cause: error });
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value);
  }
  return objects;
}

/** Compares two builds as sets of objects sorted by kind/namespace/name; undefined when they agree. */
export function compareObjectStreams(kubectl: unknown[], kaddon: unknown[]): StreamDifference | undefined {
  const unmatched = new Map(sortByKey(kaddon).map((entry) => [entry.key, entry]));
  const examples = new Map<string, string>();
  let differing = 0;
  const record = (differences: readonly ObjectDifference[]): void => {
    if (differences.length > 0) differing++;
    for (const { signature, text } of differences)
      if (!examples.has(signature)) examples.set(signature, text);
  };
  for (const expected of sortByKey(kubectl)) {
    const actual = takeCounterpart(unmatched, expected);
    record(actual ? describeObjectDifferences(expected, actual) : [missing(expected.key, 'kaddon')]);
  }
  for (const { key } of unmatched.values()) record([missing(key, 'kubectl')]);
  return differing === 0 ? undefined : { differing, examples: [...examples.values()].slice(0, MAX_EXAMPLES) };
}

/** The first position where the streams list different objects: kustomize's order is its apply order. */
export function compareObjectOrder(kubectl: unknown[], kaddon: unknown[]): string | undefined {
  const expected = kubectl.map((obj) => keyObject(obj).key);
  const actual = kaddon.map((obj) => keyObject(obj).key);
  const index = expected.findIndex((key, position) => key !== actual[position]);
  if (index < 0) return undefined;
  return `object ${String(index + 1)}: kubectl prints ${String(expected[index])}, kaddon prints ${actual[index] ?? 'nothing'}`;
}

function takeCounterpart(
  unmatched: Map<string, KeyedObject>,
  expected: KeyedObject,
): KeyedObject | undefined {
  const found =
    unmatched.get(expected.key) ??
    [...unmatched.values()].find((entry) => entry.looseKey === expected.looseKey);
  if (found) unmatched.delete(found.key);
  return found;
}

function missing(key: string, tool: 'kubectl' | 'kaddon'): ObjectDifference {
  const text =
    tool === 'kaddon'
      ? `${key}: printed by kubectl, missing from kaddon`
      : `${key}: printed by kaddon, not by kubectl`;
  return { signature: `missing from ${tool}`, text };
}

/** Every differing field, one entry each; `signature` drops list indexes so repeats group together. */
function describeObjectDifferences(expected: KeyedObject, actual: KeyedObject): ObjectDifference[] {
  return fieldDifferences(expected.obj, actual.obj, '').map((field) => ({
    signature: field.path.replace(/\[\d+\]/g, '[]'),
    text: `${expected.key}: field '${field.path}': kubectl has ${show(field.kubectl)}, kaddon has ${show(field.kaddon)}`,
  }));
}

interface FieldDifference {
  readonly path: string;
  readonly kubectl: unknown;
  readonly kaddon: unknown;
}

function fieldDifferences(kubectl: unknown, kaddon: unknown, at: string): FieldDifference[] {
  if (isDeepStrictEqual(kubectl, kaddon)) return [];
  if (Array.isArray(kubectl) && Array.isArray(kaddon)) {
    const length = Math.max(kubectl.length, kaddon.length);
    return Array.from({ length }, (_, index) =>
      fieldDifferences(kubectl[index], kaddon[index], `${at}[${String(index)}]`),
    ).flat();
  }
  if (isRecord(kubectl) && isRecord(kaddon)) {
    return [...new Set([...Object.keys(kubectl), ...Object.keys(kaddon)])]
      .sort()
      .flatMap((field) => fieldDifferences(kubectl[field], kaddon[field], at ? `${at}.${field}` : field));
  }
  return [{ path: at || '(whole object)', kubectl, kaddon }];
}

function sortByKey(objects: unknown[]): KeyedObject[] {
  return objects.map(keyObject).sort((a, b) => a.key.localeCompare(b.key));
}

function keyObject(obj: unknown): KeyedObject {
  const metadata = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : {};
  const kind = isRecord(obj) ? String(obj.kind) : '?';
  const name = String(metadata.name);
  const namespace = typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : '';
  return { key: `${kind} ${namespace}${name}`, looseKey: `${kind} ${name.replace(HASH_SUFFIX, '')}`, obj };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
