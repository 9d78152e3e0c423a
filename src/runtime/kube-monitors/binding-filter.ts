import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { snapshotItem, type ObjectAndFilterResult } from '../../hooks/binding-context.ts';
import type { KubernetesBinding } from '../../hooks/hook-config.ts';
import type { JqEngine } from '../../loader/jq-engine.ts';

/** An object as one binding keeps it: its snapshot item and the checksum that detects changes. */
export interface FilteredObject {
  readonly item: ObjectAndFilterResult;
  /**
   * MD5 of the jqFilter's result, or of the whole object without a filter (reference §2.3): an
   * Added or Modified event whose checksum equals the kept one does not run the hook.
   */
  readonly checksum: string;
}

/** Applies the binding's jqFilter to one object; throws JqExpressionError when the filter fails on it. */
export function filterObject(
  jq: JqEngine,
  binding: KubernetesBinding,
  object: JsonObject,
  where: string,
): FilteredObject {
  if (binding.jqFilter === undefined) return { item: snapshotItem(binding, object), checksum: md5(object) };
  const outputs = jq.evaluate(binding.jqFilter, object, where);
  const item = snapshotItem(binding, object, outputs);
  return { item, checksum: md5(item.filterResult ?? null) };
}

/**
 * Filters a whole list. A jq call costs ~2 ms whatever its input, so a long list goes through one
 * call (TOOLCHAIN.md); when that fails, each object is filtered alone so only the bad ones are lost.
 */
export function filterObjects(
  jq: JqEngine,
  binding: KubernetesBinding,
  objects: readonly JsonObject[],
  where: string,
  onError: (object: JsonObject, error: unknown) => void,
): (FilteredObject | undefined)[] {
  const batched = binding.jqFilter !== undefined && objects.length > 4 && !isPlainPath(binding.jqFilter);
  const outputs = batched ? batchOutputs(jq, binding.jqFilter ?? '.', objects, where) : undefined;
  return objects.map((object, i) => {
    const result = outputs?.[i];
    if (result !== undefined) {
      const item = snapshotItem(binding, object, result);
      return { item, checksum: md5(item.filterResult ?? null) };
    }
    try {
      return filterObject(jq, binding, object, where);
    } catch (error: unknown) {
      onError(object, error);
      return undefined;
    }
  });
}

function batchOutputs(
  jq: JqEngine,
  filter: string,
  objects: readonly JsonObject[],
  where: string,
): JsonValue[][] | undefined {
  try {
    // Newlines keep a trailing `# comment` in the filter from swallowing the closing brackets.
    const [result] = jq.evaluate(`[.[] | [(\n${filter}\n)]]`, [...objects], where);
    if (!Array.isArray(result) || result.length !== objects.length) return undefined;
    return result.map((outputs) => (Array.isArray(outputs) ? outputs : [outputs]));
  } catch {
    return undefined;
  }
}

/** The jq engine evaluates `.a.b` without wasm, so a batch would only cost more. */
function isPlainPath(filter: string): boolean {
  return /^\s*((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)\s*$/.test(filter);
}

function md5(value: JsonValue): string {
  return createHash('md5').update(JSON.stringify(value)).digest('hex');
}
