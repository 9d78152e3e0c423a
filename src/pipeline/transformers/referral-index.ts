import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import { describeId, effectiveNamespace, isClusterScoped, type ResId } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';

/**
 * What one referrer may name (resWrangler.SubsetThatCouldBeReferencedByResource), taken when its
 * first field is fixed: cluster-scoped objects, objects of its namespace, and for a RoleBinding
 * those of its ServiceAccount subjects' namespaces. A cluster-scoped referrer reaches everything.
 */
export interface ReferrerScope {
  readonly referrer: Resource;
  readonly reachesAll: boolean;
  readonly namespace: string;
  readonly subjectNamespaces: ReadonlySet<string>;
  /** Equal for scopes that reach the same objects. */
  readonly key: string;
}

/**
 * The name-reference pass's lookups, indexed once instead of scanning every resource per field:
 * resources by previous name and by original namespace. Fixing a referrer edits only that
 * referrer, so the index stays true until a referrer's own id changes; then call `refresh`.
 */
export class ReferralIndex {
  readonly #resources: readonly Resource[];
  readonly #byPreviousName = new Map<string, Resource[]>();
  #byOriginalNamespace = new Map<string, Resource[]>();
  /** Up to two objects of an original namespace a scope reaches, by scope key and namespace. */
  #reachedInNamespace = new Map<string, Resource[]>();

  constructor(resources: readonly Resource[]) {
    this.#resources = resources;
    for (const resource of resources) {
      for (const name of new Set(resource.previousIds.map((id) => id.name))) {
        pushTo(this.#byPreviousName, name, resource);
      }
    }
    this.refresh();
  }

  /** Re-reads the current ids, after a referrer's fields renamed the referrer itself. */
  refresh(): void {
    this.#byOriginalNamespace = new Map();
    this.#reachedInNamespace = new Map();
    for (const resource of this.#resources) {
      const original = originalId(resource);
      if (!isClusterScoped(original))
        pushTo(this.#byOriginalNamespace, effectiveNamespace(original), resource);
    }
  }

  /** Resources one of whose previous ids has `name`, in build order. */
  withPreviousName(name: string): readonly Resource[] {
    return this.#byPreviousName.get(name) ?? [];
  }

  /** True when the scope reaches an object whose original id is in `namespace` (cluster-scoped ones never are). */
  reachesOriginalNamespace(scope: ReferrerScope, namespace: string): boolean {
    if (isInNamespace(originalId(scope.referrer), namespace)) return true;
    const memoKey = `${scope.key}\u0001${namespace}`;
    let reached = this.#reachedInNamespace.get(memoKey);
    if (reached === undefined) {
      reached = firstTwo(this.#byOriginalNamespace.get(namespace) ?? [], (r) => isReachable(scope, r));
      this.#reachedInNamespace.set(memoKey, reached);
    }
    // The referrer is judged by its id now, above: it may have renamed itself since the index was built.
    return reached.some((resource) => resource !== scope.referrer);
  }
}

export function scopeOf(referrer: Resource): ReferrerScope {
  const id = referrer.id;
  if (isClusterScoped(id)) {
    return { referrer, reachesAll: true, namespace: '', subjectNamespaces: new Set(), key: '*' };
  }
  const subjectNamespaces =
    referrer.kind === 'RoleBinding' ? serviceAccountNamespaces(referrer) : new Set<string>();
  const namespace = effectiveNamespace(id);
  // A JSON list never reads '*', the key of the scope that reaches everything.
  const key = JSON.stringify([namespace, ...[...subjectNamespaces].sort()]);
  return { referrer, reachesAll: false, namespace, subjectNamespaces, key };
}

/** Whether the scope's referrer may name `candidate`; it may always name itself, as it could when the scope was taken. */
export function isReachable(scope: ReferrerScope, candidate: Resource): boolean {
  if (scope.reachesAll || candidate === scope.referrer) return true;
  const id = candidate.id;
  return (
    isClusterScoped(id) ||
    effectiveNamespace(id) === scope.namespace ||
    scope.subjectNamespaces.has(id.namespace)
  );
}

/**
 * The id an object had when it entered the build, as kustomize rebuilds it from its build
 * annotations: only names, namespaces and kinds are recorded, so it carries the current group and version.
 */
export function originalId(resource: Resource): ResId {
  const [first] = resource.previousIds;
  return first ? { ...first, group: resource.id.group, version: resource.id.version } : resource.id;
}

export function isInNamespace(id: ResId, namespace: string): boolean {
  return !isClusterScoped(id) && effectiveNamespace(id) === namespace;
}

/**
 * getNamespacesForRoleBinding: a ServiceAccount subject that has a `namespace` key must give it a
 * value; kustomize refuses `namespace:` left blank rather than guess which namespace was meant.
 */
function serviceAccountNamespaces(binding: Resource): Set<string> {
  const subjects = Array.isArray(binding.obj.subjects) ? binding.obj.subjects : [];
  const namespaces = new Set<string>();
  for (const subject of subjects) {
    if (!isJsonObject(subject) || subject.kind !== 'ServiceAccount' || !('namespace' in subject)) continue;
    if (typeof subject.namespace !== 'string') {
      throw new KustomizeError(
        'resource-invalid',
        binding.source,
        `${describeId(binding.id)}: ServiceAccount subject ${JSON.stringify(subject.name ?? null)} has a blank namespace`,
        "Give the subject its namespace, or remove the namespace key to mean the binding's own.",
      );
    }
    namespaces.add(subject.namespace);
  }
  return namespaces;
}

function pushTo(map: Map<string, Resource[]>, key: string, resource: Resource): void {
  const bucket = map.get(key);
  if (bucket) bucket.push(resource);
  else map.set(key, [resource]);
}

function firstTwo(resources: readonly Resource[], predicate: (resource: Resource) => boolean): Resource[] {
  const found: Resource[] = [];
  for (const resource of resources) {
    if (predicate(resource) && found.push(resource) === 2) break;
  }
  return found;
}
