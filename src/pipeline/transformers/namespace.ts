import { isJsonObject } from '../../core/json.ts';
import type { FieldSpec } from '../../core/kustomization.ts';
import { gvkOf, isClusterScoped } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';

const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

/**
 * kustomize's namespace transformer (kustomize's api/filters and api/internal/builtins "namespace"): every
 * namespaced object gets the namespace, (Cluster)RoleBinding subjects named `default` get it, and the
 * namespace field specs are set — the default ones rename Namespace objects and point APIService and CRD
 * conversion webhooks at the namespace.
 */
export function transformNamespace(
  resources: readonly Resource[],
  namespace: string,
  fieldSpecs: readonly FieldSpec[],
): void {
  if (namespace === '') return;
  for (const resource of resources) {
    const gvk = gvkOf(resource.obj);
    if (!isClusterScoped(gvk)) setMetadataNamespace(resource, namespace);
    if (BINDING_KINDS.has(gvk.kind)) setDefaultSubjects(resource, namespace);
    for (const spec of fieldSpecs) {
      if (!isFieldSpecFor(spec, gvk)) continue;
      // removeUnneededMetaFieldSpecs: metadata/namespace is set above, on namespaced objects only, and
      // metadata/name only on core (`v1`) objects: a Namespace kind of another group keeps its name.
      if (spec.path === 'metadata/namespace') continue;
      if (spec.path === 'metadata/name') {
        if (resource.obj.apiVersion === 'v1') resource.setName(namespace);
      } else
        visitFieldPath(resource.obj, spec.path, spec.create ?? false, (_value, set) => {
          set(namespace);
        });
    }
  }
}

function setMetadataNamespace(resource: Resource, namespace: string): void {
  // kustomize records the previous id even when the namespace does not change, which lets name
  // references find objects that were already in this namespace.
  if (resource.namespace === namespace) resource.rememberId();
  else resource.setNamespace(namespace);
}

function setDefaultSubjects(resource: Resource, namespace: string): void {
  const subjects = resource.obj.subjects;
  if (!Array.isArray(subjects)) return;
  for (const subject of subjects) {
    if (isJsonObject(subject) && subject.name === 'default') subject.namespace = namespace;
  }
}
