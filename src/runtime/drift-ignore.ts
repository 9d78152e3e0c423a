import { isJsonObject, type JsonObject } from '../core/json.ts';
import { Resource } from '../core/resource.ts';
import type { DriftIgnoreRule } from '../loader/module-manifest.ts';
import { isSelected } from '../pipeline/select-resources.ts';

/** The annotation that leaves one object out of drift detection and diff (docs/drift.md "Ignoring fields"). */
const DRIFT_ANNOTATION = 'kaddon.dev/drift';

/** What drift detection and `kaddon diff` leave out of an object's comparison. */
export interface DriftIgnore {
  /** The whole object: `kaddon.dev/drift: ignore` on the rendered or the live object. */
  readonly skip: boolean;
  /** JSON pointers of every module.yaml rule whose target selects the object. */
  readonly paths: readonly string[];
}

/** How a module's `drift.ignore` rules and the annotation apply to one object. */
export function driftIgnoreOf(
  desired: JsonObject,
  live: JsonObject | undefined,
  rules: readonly DriftIgnoreRule[],
): DriftIgnore {
  return {
    skip: isIgnoredByAnnotation(desired) || (live !== undefined && isIgnoredByAnnotation(live)),
    paths: ignoredPaths(desired, rules),
  };
}

function isIgnoredByAnnotation(object: JsonObject): boolean {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return isJsonObject(metadata.annotations) && metadata.annotations[DRIFT_ANNOTATION] === 'ignore';
}

/** The pointers of every rule whose target selects the object (a rule without one selects all). */
function ignoredPaths(object: JsonObject, rules: readonly DriftIgnoreRule[]): string[] {
  if (rules.length === 0) return [];
  const resource = new Resource(object, 'module.yaml');
  return rules.flatMap((rule) =>
    rule.target === undefined || isSelected(resource, rule.target) ? rule.paths : [],
  );
}
