import { KustomizeError } from '../../core/errors.ts';
import type { FieldSpec, ReplicaEntry } from '../../core/kustomization.ts';
import type { Gvk } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';

/**
 * `replicas` entries in order (kustomize's api/filters and api/internal/builtins replicas): every object
 * whose current or any previous id has the entry's name and a kind of a field spec gets the count at that
 * spec's path. An entry that matches no object at all is an error; `file` is the kustomization it came from.
 */
export function transformReplicas(
  resources: readonly Resource[],
  replicas: readonly ReplicaEntry[],
  fieldSpecs: readonly FieldSpec[],
  file: string,
): void {
  for (const replica of replicas) applyReplica(resources, replica, fieldSpecs, file);
}

function applyReplica(
  resources: readonly Resource[],
  replica: ReplicaEntry,
  fieldSpecs: readonly FieldSpec[],
  file: string,
): void {
  const name = replica.name ?? '';
  const count = replica.count ?? 0;
  let found = false;
  for (const spec of fieldSpecs) {
    const matches = resources.filter((resource) =>
      [resource.id, ...resource.previousIds].some((id) => id.name === name && isFieldSpecFor(spec, id)),
    );
    if (matches.length > 0) found = true;
    // Matched by a previous id, an object is still only written when its current kind fits the spec.
    for (const resource of matches.filter((match) => isFieldSpecFor(spec, match.id))) {
      visitFieldPath(resource.obj, spec.path, spec.create === true, (_value, set) => {
        set(count);
      });
    }
  }
  if (found) return;
  const gvks = fieldSpecs.map((spec) => formatGvk(spec));
  const kinds = [...new Set(fieldSpecs.map((spec) => spec.kind || 'object'))].join('/');
  throw new KustomizeError(
    'transformer-invalid',
    file,
    `replicas: resource with name ${name} does not match a config with the following GVK [${gvks.join(' ')}]`,
    `Set the entry's name to that of a ${kinds} in this build (its name before namePrefix/nameSuffix also works).`,
  );
}

/** kustomize's GVK form in messages: `Kind.version.group` with `[noKind]`, `[noVer]`, `[noGrp]`. */
function formatGvk(gvk: Partial<Gvk>): string {
  return `${gvk.kind || '[noKind]'}.${gvk.version || '[noVer]'}.${gvk.group || '[noGrp]'}`;
}
