import { deepEqual, isJsonObject, type JsonValue } from './json.ts';
import { pointerSegments } from './values-patch.ts';

/** One step of how an owner's values are built (docs/values.md "Where a value came from"). */
export interface ValuesLayer {
  /** What people call it: `modules/values.yaml`, `ConfigMap`, `hook 'hooks/x.sh'`… */
  readonly name: string;
  /** The values after this layer. */
  readonly value: JsonValue;
}

/** A leaf of the final values and the layer that set it last. */
export interface ValueOrigin {
  /** JSON pointer from the owner's section: `/replicas`, `/ingress/hosts`. */
  readonly path: string;
  readonly value: JsonValue;
  readonly origin: string;
}

/**
 * Each leaf of the last layer's values (a scalar, an empty map, or a whole list: patches and merges
 * replace lists whole) with the layer that gave it its value: the last one whose value at that path
 * differs from the layer before. Layers are in the order they apply.
 */
export function valueOrigins(layers: readonly ValuesLayer[]): ValueOrigin[] {
  const last = layers.at(-1);
  if (last === undefined) return [];
  return leaves(last.value, '').map(({ path, value }) => ({ path, value, origin: originOf(layers, path) }));
}

function originOf(layers: readonly ValuesLayer[], path: string): string {
  const parts = pointerSegments(path);
  for (let index = layers.length - 1; index > 0; index--) {
    const here = valueAt(layers[index]?.value, parts);
    const before = valueAt(layers[index - 1]?.value, parts);
    if (!deepEqual(here ?? null, before ?? null) || (before === undefined && here !== undefined))
      return layers[index]?.name ?? '';
  }
  return layers[0]?.name ?? '';
}

function leaves(value: JsonValue, path: string): { path: string; value: JsonValue }[] {
  if (isJsonObject(value) && Object.keys(value).length > 0)
    return Object.entries(value).flatMap(([key, child]) => leaves(child, `${path}/${escapePointer(key)}`));
  return [{ path, value }];
}

/** The value a JSON pointer names in `value`, through maps only (leaves of valueOrigins). */
export function valueAtPointer(value: JsonValue, pointer: string): JsonValue | undefined {
  return valueAt(value, pointerSegments(pointer));
}

function valueAt(value: JsonValue | undefined, parts: readonly string[]): JsonValue | undefined {
  let node = value;
  for (const part of parts) {
    if (!isJsonObject(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

interface WriterNode {
  writer: string | undefined;
  children: Map<string, WriterNode>;
}

/**
 * Who last wrote each path of an owner's values (the hooks' patches, for valueOrigins): a write
 * replaces what was under its path, so the writer of a leaf is the one of its deepest written
 * ancestor. Each write and each look-up costs the depth of its path, whatever the number of
 * writes before: a hook's patch of 80,000 operations stays linear (docs/modules.md "Limits on
 * input").
 */
export class PathWriters {
  readonly #root: WriterNode = { writer: undefined, children: new Map() };

  write(pointer: string, writer: string): void {
    let node = this.#root;
    for (const part of pointerSegments(pointer)) {
      let child = node.children.get(part);
      if (child === undefined) {
        child = { writer: undefined, children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.writer = writer;
    node.children = new Map();
  }

  /** The writer of the path or of its deepest written ancestor. */
  writerOf(pointer: string): string | undefined {
    let node: WriterNode | undefined = this.#root;
    let writer = node.writer;
    for (const part of pointerSegments(pointer)) {
      node = node.children.get(part);
      if (node === undefined) break;
      writer = node.writer ?? writer;
    }
    return writer;
  }
}
