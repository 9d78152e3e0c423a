import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { snapshotItem, type ObjectAndFilterResult } from '../../hooks/binding-context.ts';
import type { KubernetesBinding } from '../../hooks/hook-config.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';

/** An object as one binding keeps it: its snapshot item and the checksum that detects changes. */
export interface FilteredObject {
  readonly item: ObjectAndFilterResult;
  /**
   * MD5 of the jqFilter's result, or of the whole object without a filter (docs/hooks.md "kubernetes"): an
   * Added or Modified event whose checksum equals the kept one does not run the hook.
   */
  readonly checksum: string;
  /**
   * What the item holds, in JSON bytes: the object if kept plus the filter result if any
   * (docs/observability.md "Metrics": kube_snapshot_bytes).
   */
  readonly bytes: number;
}

/** Applies the binding's jqFilter to one object; throws JqExpressionError when the filter fails on it. */
export function filterObject(
  jq: JqEngine,
  binding: KubernetesBinding,
  object: JsonObject,
  where: string,
): FilteredObject {
  if (binding.jqFilter === undefined) return keptObject(snapshotItem(binding, object), object);
  const outputs = jq.evaluate(binding.jqFilter, object, where);
  return keptObject(snapshotItem(binding, object, outputs), object);
}

/**
 * Filters a whole list. A jq call costs ~2 ms whatever its input, so a long list goes through one call
 * (docs/architecture.md "Dependencies"); when that fails, each object is filtered alone so only the bad ones
 * are lost.
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
    if (result !== undefined) return keptObject(snapshotItem(binding, object, result), object);
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

/** The checksum covers the filter result when the binding has a filter, else the object. */
function keptObject(item: ObjectAndFilterResult, object: JsonObject): FilteredObject {
  const filtered = 'filterResult' in item;
  const resultJson = filtered ? JSON.stringify(item.filterResult ?? null) : undefined;
  const objectJson = item.object !== undefined || !filtered ? JSON.stringify(object) : undefined;
  const checksum = md5(resultJson ?? objectJson ?? 'null');
  const bytes = (item.object === undefined ? 0 : byteLength(objectJson)) + byteLength(resultJson);
  return { item, checksum, bytes };
}

function byteLength(json: string | undefined): number {
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}

function md5(json: string): string {
  return createHash('md5').update(json).digest('hex');
}
