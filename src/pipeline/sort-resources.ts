import { KIND_ORDER_FIRST, KIND_ORDER_LAST, kindPriority } from '../core/kind-order.ts';
import type { Resource } from '../core/resource.ts';

export interface LegacySortOptions {
  readonly orderFirst?: readonly string[];
  readonly orderLast?: readonly string[];
}

/**
 * kustomize's legacy output order (kustomize's kyaml/resid/gvk.go): kinds by priority, then GVK, then
 * namespace and name.
 */
export function sortLegacy(resources: readonly Resource[], options: LegacySortOptions = {}): Resource[] {
  const first = options.orderFirst ?? KIND_ORDER_FIRST;
  const last = options.orderLast ?? KIND_ORDER_LAST;
  const keyed = resources.map((resource) => sortKeyOf(resource, kindPriority(resource.kind, first, last)));
  keyed.sort(
    (a, b) => a.rank - b.rank || compareGvk(a, b) || compareStrings(a.namespacedName, b.namespacedName),
  );
  return keyed.map((entry) => entry.resource);
}

/** What the order compares, read once per resource rather than once per comparison. */
interface SortKey {
  readonly resource: Resource;
  readonly rank: number;
  readonly kind: string;
  readonly group: string;
  readonly gvk: string;
  readonly namespacedName: string;
}

function sortKeyOf(resource: Resource, rank: number): SortKey {
  const { group, version, kind, name, namespace } = resource.id;
  return {
    resource,
    rank,
    kind,
    group,
    gvk: `${group || '~G'}_${version || '~V'}_${kind}`,
    namespacedName: `${namespace || '~X'}|${name}`,
  };
}

function compareGvk(a: SortKey, b: SortKey): number {
  if (
    a.kind === 'Namespace' &&
    b.kind === 'Namespace' &&
    (a.group === '' || b.group === '') &&
    a.group !== b.group
  ) {
    // The core Namespace sorts before a same-named kind of another group.
    return a.group === '' ? -1 : 1;
  }
  return compareStrings(a.gvk, b.gvk);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
