import type { FieldSpec } from '../../core/kustomization.ts';
import { gvkOf, type Gvk } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';

/** Kinds whose names are never prefixed or suffixed: their names mean something to the API. */
function isExemptFromRename(gvk: Gvk): boolean {
  return (
    gvk.kind === 'CustomResourceDefinition' ||
    (gvk.kind === 'Namespace' && gvk.group === '') ||
    (gvk.kind === 'APIService' && gvk.group === 'apiregistration.k8s.io')
  );
}

/**
 * namePrefix / nameSuffix (kustomize's api/filters and api/internal/builtins): the name becomes prefix + name
 * + suffix on every object but the exempt kinds; the prefix and suffix are recorded so name references can
 * tell copies apart.
 */
export function transformNamePrefixSuffix(
  resources: readonly Resource[],
  prefix: string,
  suffix: string,
  fieldSpecs: readonly FieldSpec[],
): void {
  if (prefix === '' && suffix === '') return;
  for (const resource of resources) {
    if (isExemptFromRename(resource.originalId) || isExemptFromRename(gvkOf(resource.obj))) continue;
    const gvk = gvkOf(resource.obj);
    for (const spec of fieldSpecs) {
      if (!isFieldSpecFor(spec, gvk)) continue;
      if (spec.path === 'metadata/name') {
        resource.setName(`${prefix}${resource.name}${suffix}`);
        continue;
      }
      visitFieldPath(resource.obj, spec.path, spec.create ?? false, (value, set) => {
        if (typeof value === 'string') set(`${prefix}${value}${suffix}`);
      });
    }
    if (prefix !== '') resource.namePrefixes.push(prefix);
    if (suffix !== '') resource.nameSuffixes.push(suffix);
  }
}
