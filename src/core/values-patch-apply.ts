import { errorMessage } from './errors.ts';
import jsonpatch from 'fast-json-patch';
import { MAX_JSON_DEPTH, nestsDeeperThan, type JsonObject } from './json.ts';
import {
  describeOperation,
  pointerSegments,
  ValuesPatchError,
  type PatchSource,
  type ValuesPatch,
  type ValuesPatchOperation,
} from './values-patch.ts';

export interface ApplyPatchOptions {
  readonly source: PatchSource;
  /**
   * Replaying stored patches over changed config values: a `remove` of a path that is gone is
   * skipped, as addon-operator replays them (IgnoreNonExistentPaths). A hook's new patch is strict.
   */
  readonly ignoreMissingRemoves?: boolean;
}

/** Applies a patch to a copy of `doc`, all or nothing: on a failing operation it throws. */
export function applyValuesPatch(
  doc: JsonObject,
  patch: ValuesPatch,
  options: ApplyPatchOptions,
): JsonObject {
  let result = structuredClone(doc);
  patch.forEach((operation, index) => {
    try {
      result = jsonpatch.applyOperation(
        result,
        structuredClone(operation) as jsonpatch.Operation,
        true,
        true,
        true,
        index,
      ).newDocument;
    } catch (error: unknown) {
      const code = error instanceof jsonpatch.JsonPatchError ? error.name : undefined;
      if (options.ignoreMissingRemoves && operation.op === 'remove' && code === 'OPERATION_PATH_UNRESOLVABLE')
        return;
      throw new ValuesPatchError(
        'values-patch-failed',
        options.source,
        `${describeOperation(index, operation)} does not apply: ${failure(code, error)}`,
        'Patch paths that exist (add creates one key, not its parents), or add the parent first.',
        { cause: error },
      );
    }
  });
  // Each operation is bounded by the stream's depth, but operations stacked one under another are not.
  if (nestsDeeperThan(result, MAX_JSON_DEPTH))
    throw new ValuesPatchError(
      'values-patch-failed',
      options.source,
      `the patched values nest deeper than ${String(MAX_JSON_DEPTH)} levels`,
      'Keep values shallower: kaddon holds values at most that deep (docs/modules.md "Limits on input").',
    );
  return result;
}

const FAILURES: Readonly<Record<string, string>> = {
  OPERATION_PATH_CANNOT_ADD: 'the parent of the path does not exist',
  OPERATION_PATH_UNRESOLVABLE: 'the path does not exist',
  OPERATION_FROM_UNRESOLVABLE: "the 'from' path does not exist",
  OPERATION_VALUE_OUT_OF_BOUNDS: 'the list index is out of bounds',
  TEST_OPERATION_FAILED: 'the value at the path differs from the tested value',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'the path is not a valid list index',
};

function failure(code: string | undefined, error: unknown): string {
  if (code !== undefined && code in FAILURES) return FAILURES[code] ?? code;
  return errorMessage(error).split('\n')[0] ?? 'unknown error';
}

/**
 * Adds a hook's operations to the stored ones and drops what they make dead, so stored patches
 * stay as small as the values they set (addon-operator compacts too). Replaying the result over
 * the same values gives what replaying everything gives: an `add` or `remove` at a path of map
 * keys only supersedes earlier add/remove/copy operations at or under that path, never across a
 * move or copy (which read other paths), and never on list positions (which shift). `test`
 * operations check the hook's own run and are not kept.
 */
export function compactValuesPatch(stored: ValuesPatch, added: ValuesPatch): ValuesPatch {
  const out: (ValuesPatchOperation | undefined)[] = [];
  // The operations after the last move or copy, by path: dropping those at or under a path visits
  // only what is dropped, so compaction takes time linear in the operations, not quadratic.
  let paths = pathNode();
  const keep = (operation: ValuesPatchOperation): void => {
    if (operation.op === 'move' || operation.op === 'copy') paths = pathNode();
    else nodeAt(paths, pointerSegments(operation.path), true)?.operations.push(out.length);
    out.push(operation);
  };
  for (const operation of stored) keep(operation);
  for (const operation of added) {
    if (operation.op === 'test') continue;
    if ((operation.op === 'add' || operation.op === 'remove') && isMapKeysPath(operation.path))
      for (const index of detach(paths, pointerSegments(operation.path))) out[index] = undefined;
    keep(operation);
  }
  return out.filter((operation) => operation !== undefined);
}

/** Operations (their indices) by the segments of their path. */
interface PathNode {
  readonly operations: number[];
  readonly children: Map<string, PathNode>;
}

function pathNode(): PathNode {
  return { operations: [], children: new Map() };
}

function nodeAt(root: PathNode, segments: readonly string[], create: boolean): PathNode | undefined {
  let node: PathNode | undefined = root;
  for (const segment of segments) {
    let child: PathNode | undefined = node.children.get(segment);
    if (child === undefined) {
      if (!create) return undefined;
      child = pathNode();
      node.children.set(segment, child);
    }
    node = child;
  }
  return node;
}

/** Removes the node at `segments` with everything under it; returns their operations. */
function detach(root: PathNode, segments: readonly string[]): number[] {
  const last = segments.at(-1);
  const parent = last === undefined ? undefined : nodeAt(root, segments.slice(0, -1), false);
  const node = last === undefined ? root : parent?.children.get(last);
  if (node === undefined) return [];
  if (parent !== undefined && last !== undefined) parent.children.delete(last);
  const found: number[] = [];
  const pending = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    found.push(...next.operations);
    pending.push(...next.children.values());
  }
  if (last === undefined) {
    root.operations.length = 0;
    root.children.clear();
  }
  return found;
}

function isMapKeysPath(path: string): boolean {
  return pointerSegments(path).every((segment) => segment !== '-' && !/^\d+$/.test(segment));
}
