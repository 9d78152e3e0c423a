import { isJsonObject, scalarText, type JsonObject } from '../../core/json.ts';
import type { FieldSpec } from '../../core/kustomization.ts';
import { gvkOf } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';

/**
 * Writes string pairs into the maps the field specs reach (labels, selectors, annotations),
 * creating a map where a spec says so and overwriting values already there.
 */
export function setMapEntries(
  resources: readonly Resource[],
  pairs: Readonly<Record<string, string>>,
  fieldSpecs: readonly FieldSpec[],
): void {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return;
  for (const resource of resources) {
    const gvk = gvkOf(resource.obj);
    for (const spec of fieldSpecs) {
      if (!isFieldSpecFor(spec, gvk)) continue;
      visitFieldPath(resource.obj, spec.path, spec.create ?? false, (value, set) => {
        const map: JsonObject = isJsonObject(value) ? value : {};
        for (const [key, v] of entries) map[key] = v;
        set(map);
      });
    }
  }
}

/** Map values in kustomizations may be written as numbers or booleans; they are strings to the API. */
export function toStringMap(map: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) out[key] = scalarText(value);
  return out;
}
