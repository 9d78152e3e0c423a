/**
 * Helm's install order by kind (helm's releaseutil InstallOrder, checked against `helm template` of
 * helm 4.1.4; docs/delivery.md "Order"): CRDs and Namespaces before what lives in them.
 */
export const INSTALL_ORDER: readonly string[] = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];

/** Helm's UninstallOrder: what depends on others goes first, Namespaces near the end. */
export const UNINSTALL_ORDER: readonly string[] = [
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'Ingress',
  'IngressClass',
  'Service',
  'CronJob',
  'Job',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'Pod',
  'DaemonSet',
  'RoleBindingList',
  'RoleBinding',
  'RoleList',
  'Role',
  'ClusterRoleBindingList',
  'ClusterRoleBinding',
  'ClusterRoleList',
  'ClusterRole',
  'CustomResourceDefinition',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'ConfigMap',
  'SecretList',
  'Secret',
  'ServiceAccount',
  'PodDisruptionBudget',
  'PodSecurityPolicy',
  'LimitRange',
  'ResourceQuota',
  'NetworkPolicy',
  'Namespace',
  'PriorityClass',
];

/**
 * Sorted as helm sorts (a stable sort): listed kinds in the order's position, then unlisted kinds
 * by name, each kind's items in their original order.
 */
export function sortByKind<T>(
  items: readonly T[],
  kindOf: (item: T) => string,
  order: readonly string[],
): T[] {
  const rank = new Map(order.map((kind, index) => [kind, index]));
  return items
    .map((item, index) => ({ item, index, kind: kindOf(item) }))
    .sort((a, b) => {
      const ra = rank.get(a.kind);
      const rb = rank.get(b.kind);
      if (ra === undefined && rb === undefined)
        return a.kind === b.kind ? a.index - b.index : a.kind < b.kind ? -1 : 1;
      if (ra === undefined) return 1;
      if (rb === undefined) return -1;
      return ra === rb ? a.index - b.index : ra - rb;
    })
    .map(({ item }) => item);
}
