import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { Resource } from '../../core/resource.ts';

/**
 * Absorbs a generated object with behavior merge or replace into the object already accumulated under its id
 * (kustomize's api/resmap/reswrangler.go). The result is the generated object (its `type`, `immutable` and
 * other fields win) carrying the existing object's name and namespace, both objects' labels and annotations
 * (generated wins per key), and for merge both objects' `data` and `binaryData` (generated wins per key). It
 * keeps the existing object's history (previous ids, prefixes, suffixes, owner) and wants a hash suffix only
 * when both did [gen-10b, gen-10c].
 */
export function mergeGenerated(
  existing: Resource,
  generated: Resource,
  behavior: 'merge' | 'replace',
): Resource {
  let obj: JsonObject = { ...deepClone(generated.obj), metadata: mergedMetadata(existing, generated) };
  if (behavior === 'merge') {
    obj.data = { ...dataMap(existing.obj.data), ...dataMap(obj.data) };
    obj.binaryData = { ...dataMap(existing.obj.binaryData), ...dataMap(obj.binaryData) };
    obj = withoutEmpty(obj, ['data', 'binaryData']);
  }
  const result = existing.clone(obj);
  result.needsHashSuffix = existing.needsHashSuffix && generated.needsHashSuffix;
  // The origin is an annotation in kustomize: replace lets the generated one win like any other,
  // merge puts the existing object's back.
  if (behavior === 'replace') result.origin = generated.origin ?? existing.origin;
  return result;
}

/**
 * The generated object's metadata, renamed to the existing object, with the labels and annotations of both.
 */
function mergedMetadata(existing: Resource, generated: Resource): JsonObject {
  const metadata: JsonObject = {
    ...(isJsonObject(generated.obj.metadata) ? deepClone(generated.obj.metadata) : {}),
    name: existing.name,
    namespace: existing.namespace,
    labels: { ...existing.labels(), ...generated.labels() },
    annotations: { ...existing.annotations(), ...generated.annotations() },
  };
  return withoutEmpty(metadata, ['namespace', 'labels', 'annotations']);
}

/** kustomize leaves out a namespace, label, annotation or data map that ends up empty. */
function withoutEmpty(obj: JsonObject, fields: readonly string[]): JsonObject {
  const isEmpty = (value: JsonValue): boolean =>
    value === '' || (isJsonObject(value) && Object.keys(value).length === 0);
  return Object.fromEntries(
    Object.entries(obj).filter(([key, value]) => !fields.includes(key) || !isEmpty(value)),
  );
}

/** A data map with every value read as text: scalars as written, null and collections as "". */
function dataMap(value: JsonValue | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  if (!isJsonObject(value)) return map;
  for (const [key, item] of Object.entries(value)) {
    map[key] = item === null || typeof item === 'object' ? '' : String(item);
  }
  return map;
}
