import type { Resource } from '../core/resource.ts';

/** kustomize's legacy output order (reference §11): kinds by priority, then GVK, then namespace and name. */
const ORDER_FIRST = [
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
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

export interface LegacySortOptions {
  readonly orderFirst?: readonly string[];
  readonly orderLast?: readonly string[];
}

export function sortLegacy(resources: readonly Resource[], options: LegacySortOptions = {}): Resource[] {
  const first = options.orderFirst ?? ORDER_FIRST;
  const last = options.orderLast ?? ORDER_LAST;
  const priority = (kind: string): number => {
    const i = first.indexOf(kind);
    if (i >= 0) return i - first.length;
    const j = last.indexOf(kind);
    return j >= 0 ? 1 + j : 0;
  };
  const keyed = resources.map((resource) => ({ resource, id: resource.id, rank: priority(resource.kind) }));
  keyed.sort((a, b) => a.rank - b.rank || compareGvk(a.id, b.id) || compareNamespacedName(a.id, b.id));
  return keyed.map((entry) => entry.resource);
}

interface SortId {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

function compareGvk(a: SortId, b: SortId): number {
  if (
    a.kind === 'Namespace' &&
    b.kind === 'Namespace' &&
    (a.group === '' || b.group === '') &&
    a.group !== b.group
  ) {
    // The core Namespace sorts before a same-named kind of another group.
    return a.group === '' ? -1 : 1;
  }
  return compareStrings(gvkString(a), gvkString(b));
}

function gvkString(id: SortId): string {
  return `${id.group || '~G'}_${id.version || '~V'}_${id.kind}`;
}

function compareNamespacedName(a: SortId, b: SortId): number {
  return compareStrings(`${a.namespace || '~X'}|${a.name}`, `${b.namespace || '~X'}|${b.name}`);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
