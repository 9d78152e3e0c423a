import { isJsonObject, scalarText, type JsonObject } from '../core/json.ts';
import type { SortOptions } from '../core/kustomization.ts';
import type { Resource } from '../core/resource.ts';
import { contentHash } from './hash-suffix.ts';
import type { ResourceAccumulator } from './resource-accumulator.ts';
import { sortLegacy } from './sort-resources.ts';
import { fixNameReferences, type NameLookupObserver } from './transformers/name-reference.ts';
import { resolveVars } from './transformers/vars.ts';

export interface BuildResult {
  /** The built objects in output order. */
  readonly resources: readonly Resource[];
  /** Things kustomize would log: vars never used. */
  readonly warnings: readonly string[];
}

const LOCAL_CONFIG = 'config.kubernetes.io/local-config';

/**
 * What kustomize does once, after the top-level kustomization (kustomize's api/internal/target/kusttarget.go
 * steps 9–13): hash suffixes, the name-reference fix-up, vars, dropping local-config objects, then the output
 * order.
 */
export function finishBuild(
  ra: ResourceAccumulator,
  sortOptions: SortOptions | undefined,
  observer?: NameLookupObserver,
): BuildResult {
  appendHashSuffixes(ra.resources);
  fixNameReferences(ra.resources, ra.config.nameReference, observer);
  const unused = resolveVars(ra.resources, ra.vars, ra.config.varReference);
  const kept = ra.resources.filter((resource) => resource.annotations()[LOCAL_CONFIG] !== 'true');
  for (const resource of kept) normalizeAnnotations(resource.obj);
  const ordered =
    sortOptions?.order === 'fifo' ? kept : sortLegacy(kept, sortOptions?.legacySortOptions ?? {});
  const warnings =
    unused.length > 0 ? [`well-defined vars that were never replaced: ${unused.join(', ')}`] : [];
  return { resources: ordered, warnings };
}

/**
 * kustomize rewrites every object's annotation map when it strips its build annotations: values
 * come out as strings and an empty map disappears.
 */
function normalizeAnnotations(obj: JsonObject): void {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return;
  const annotations = metadata.annotations;
  if (Object.keys(annotations).length === 0) {
    delete metadata.annotations;
    return;
  }
  for (const [key, value] of Object.entries(annotations)) {
    if (typeof value !== 'string') annotations[key] = scalarText(value);
  }
}

function appendHashSuffixes(resources: readonly Resource[]): void {
  for (const resource of resources) {
    if (resource.needsHashSuffix) resource.setName(`${resource.name}-${contentHash(resource.obj)}`);
  }
}
