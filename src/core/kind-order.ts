/**
 * kustomize's kind priority (kustomize's kyaml/resid/gvk.go): the legacy output order and
 * the order field specs are merged in. Kinds first, unlisted kinds between, webhooks last.
 */
export const KIND_ORDER_FIRST: readonly string[] = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];

export const KIND_ORDER_LAST: readonly string[] = [
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];

/** Negative for the listed first kinds (in order), 0 for the rest, positive for the last ones. */
export function kindPriority(
  kind: string,
  first: readonly string[] = KIND_ORDER_FIRST,
  last: readonly string[] = KIND_ORDER_LAST,
): number {
  const i = first.indexOf(kind);
  if (i >= 0) return i - first.length;
  const j = last.indexOf(kind);
  return j >= 0 ? j + 1 : 0;
}
