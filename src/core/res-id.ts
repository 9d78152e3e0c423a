import { isJsonObject, type JsonObject } from './json.ts';

/** Group, version and kind of an object; `v1` has the empty group. */
export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** kustomize's resource identity: GVK, name and namespace (kustomize's kyaml/resid). */
export interface ResId extends Gvk {
  readonly name: string;
  readonly namespace: string;
}

/**
 * Kinds the Kubernetes v1.21.2 API serves cluster-scoped, by exact `apiVersion kind` (kustomize's
 * kyaml/resid); every other kind, custom resources included, counts as namespaced.
 */
const CLUSTER_SCOPED = new Set([
  'v1 ComponentStatus',
  'v1 Namespace',
  'v1 Node',
  'v1 PersistentVolume',
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1 CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1 CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService',
  'apiregistration.k8s.io/v1beta1 APIService',
  'authentication.k8s.io/v1 TokenReview',
  'authentication.k8s.io/v1beta1 TokenReview',
  'authorization.k8s.io/v1 SelfSubjectAccessReview',
  'authorization.k8s.io/v1 SelfSubjectRulesReview',
  'authorization.k8s.io/v1 SubjectAccessReview',
  'authorization.k8s.io/v1beta1 SelfSubjectAccessReview',
  'authorization.k8s.io/v1beta1 SelfSubjectRulesReview',
  'authorization.k8s.io/v1beta1 SubjectAccessReview',
  'certificates.k8s.io/v1 CertificateSigningRequest',
  'certificates.k8s.io/v1beta1 CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration',
  'networking.k8s.io/v1 IngressClass',
  'networking.k8s.io/v1beta1 IngressClass',
  'node.k8s.io/v1 RuntimeClass',
  'node.k8s.io/v1beta1 RuntimeClass',
  'policy/v1beta1 PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1 ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1alpha1 ClusterRole',
  'rbac.authorization.k8s.io/v1alpha1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1beta1 ClusterRole',
  'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding',
  'scheduling.k8s.io/v1 PriorityClass',
  'scheduling.k8s.io/v1alpha1 PriorityClass',
  'scheduling.k8s.io/v1beta1 PriorityClass',
  'storage.k8s.io/v1 CSIDriver',
  'storage.k8s.io/v1 CSINode',
  'storage.k8s.io/v1 StorageClass',
  'storage.k8s.io/v1 VolumeAttachment',
  'storage.k8s.io/v1alpha1 VolumeAttachment',
  'storage.k8s.io/v1beta1 CSIDriver',
  'storage.k8s.io/v1beta1 CSINode',
  'storage.k8s.io/v1beta1 StorageClass',
  'storage.k8s.io/v1beta1 VolumeAttachment',
]);

/** Stands for the namespace of cluster-scoped objects: never equal to a real namespace. */
const CLUSTER_NAMESPACE = '\u0000cluster';

export function apiVersionOf(gvk: Gvk): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function isClusterScoped(gvk: Gvk): boolean {
  return CLUSTER_SCOPED.has(`${apiVersionOf(gvk)} ${gvk.kind}`);
}

/** The namespace two ids are compared by: '' and 'default' are one; cluster-scoped kinds have none. */
export function effectiveNamespace(id: ResId): string {
  if (isClusterScoped(id)) return CLUSTER_NAMESPACE;
  return id.namespace === '' ? 'default' : id.namespace;
}

export function isSameGvk(a: Gvk, b: Gvk): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

export function isSameId(a: ResId, b: ResId): boolean {
  return isSameGvk(a, b) && a.name === b.name && effectiveNamespace(a) === effectiveNamespace(b);
}

/** A key equal for exactly the ids `isSameId` calls equal. */
export function idKey(id: ResId): string {
  return `${id.group}\u0001${id.version}\u0001${id.kind}\u0001${id.name}\u0001${effectiveNamespace(id)}`;
}

/** kustomize's printed form: `Kind.version.group/name.namespace` with `[noX]` for empty parts. */
export function formatId(id: ResId): string {
  const part = (value: string, none: string): string => (value === '' ? `[no${none}]` : value);
  return `${part(id.kind, 'Kind')}.${part(id.version, 'Ver')}.${part(id.group, 'Grp')}/${part(id.name, 'Name')}.${part(id.namespace, 'Ns')}`;
}

/** The short form users read: `Deployment/web` or `Deployment/web in namespace 'shop'`. */
export function describeId(id: ResId): string {
  return id.namespace ? `${id.kind}/${id.name} in namespace '${id.namespace}'` : `${id.kind}/${id.name}`;
}

function stringAt(obj: JsonObject, key: string): string {
  const value = obj[key];
  return typeof value === 'string' ? value : '';
}

export function gvkOf(obj: JsonObject): Gvk {
  return { ...parseApiVersion(stringAt(obj, 'apiVersion')), kind: stringAt(obj, 'kind') };
}

export function idOf(obj: JsonObject): ResId {
  const metadata = obj.metadata;
  const meta = isJsonObject(metadata) ? metadata : {};
  return { ...gvkOf(obj), name: stringAt(meta, 'name'), namespace: stringAt(meta, 'namespace') };
}
