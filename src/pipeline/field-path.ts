import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import type { FieldSpec } from '../core/kustomization.ts';
import type { Gvk } from '../core/res-id.ts';

/** A field spec that walks into a scalar: kustomize's `expected sequence or mapping node`. */
class FieldPathError extends KaddonError {
  readonly code = 'field-spec-invalid';
  constructor(path: string, segment: string) {
    super(
      `field spec '${path}': '${segment}' is a scalar, expected a sequence or mapping node.`,
      'Correct the field spec path or the object.',
    );
  }
}

/**
 * Called at each field a path reaches. `value` is undefined when the leaf is missing (only with
 * create); `set` writes the field.
 */
export type FieldVisitor = (value: JsonValue | undefined, set: (value: JsonValue) => void) => void;

/**
 * Splits a field-spec path at `/`, honouring `\/` inside keys (kustomize's api/konfig/builtinpluginconsts).
 */
function splitFieldPath(path: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path.charAt(i);
    if (ch === '\\' && path[i + 1] === '/') {
      current += '/';
      i++;
    } else if (ch === '/') {
      segments.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  segments.push(current);
  return segments.filter((segment) => segment !== '');
}

/** True when the spec's non-empty group, version and kind equal the object's. */
export function isFieldSpecFor(spec: FieldSpec, gvk: Gvk): boolean {
  return (
    (!spec.group || spec.group === gvk.group) &&
    (!spec.version || spec.version === gvk.version) &&
    (!spec.kind || spec.kind === gvk.kind)
  );
}

/**
 * Visits every field `path` reaches in `obj`. A sequence on the way applies the rest of the path
 * to each element; `name[]` names a field expected to be a sequence. With `create`, missing maps
 * are created and the visitor sees the missing leaf as undefined.
 */
export function visitFieldPath(obj: JsonObject, path: string, create: boolean, visit: FieldVisitor): void {
  walk(obj, segmentsOf(path), 0, create, path, visit);
}

/** Split paths, by path: a build visits the same few hundred field specs on every object. */
const splitPaths = new Map<string, readonly string[]>();

function segmentsOf(path: string): readonly string[] {
  let segments = splitPaths.get(path);
  if (segments === undefined) {
    if (splitPaths.size >= 10_000) splitPaths.clear();
    segments = splitFieldPath(path);
    splitPaths.set(path, segments);
  }
  return segments;
}

function walk(
  node: JsonValue,
  segments: readonly string[],
  index: number,
  create: boolean,
  path: string,
  visit: FieldVisitor,
): void {
  // kustomize's fieldspec filter skips null nodes (e.g. a `- null` list item) instead of failing.
  if (node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, segments, index, create, path, visit);
    return;
  }
  const raw = segments[index];
  if (raw === undefined) return;
  if (!isJsonObject(node)) throw new FieldPathError(path, raw);
  const key = raw.endsWith('[]') ? raw.slice(0, -2) : raw;
  const isLeaf = index === segments.length - 1;
  const child = node[key];
  if (isLeaf) {
    if (child === undefined && !create) return;
    visit(child, (value) => {
      node[key] = value;
    });
    return;
  }
  if (child === undefined || child === null) {
    // kustomize creates maps on the way to a field, never the sequences `name[]` marks.
    if (!create || raw.endsWith('[]')) return;
    const created: JsonValue = {};
    node[key] = created;
    walk(created, segments, index + 1, create, path, visit);
    return;
  }
  walk(child, segments, index + 1, create, path, visit);
}
