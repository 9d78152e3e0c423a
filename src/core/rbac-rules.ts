import type { JsonObject } from './json.ts';

/** What the operator must be allowed: verbs on a resource, in one namespace or cluster-wide. */
export interface Permission {
  readonly group: string;
  readonly resource: string;
  readonly verbs: readonly string[];
  /** Undefined: in every namespace (or a cluster-scoped resource). */
  readonly namespace?: string | undefined;
}

/** Who gets the permissions, and the name of the roles and bindings. */
export interface RbacSubject {
  readonly name: string;
  readonly serviceAccount: string;
  readonly serviceAccountNamespace: string;
}

const RBAC_API = 'rbac.authorization.k8s.io/v1';
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'escalate', 'bind'];

/**
 * The ClusterRole and Roles that grant `permissions`, with their bindings to the service account
 * (docs/rbac.md): cluster-wide permissions in a ClusterRole, the others in a Role per namespace, a
 * namespaced permission already granted cluster-wide left out. Rules are merged per API group and
 * verbs, and everything is sorted, so the same tree prints the same text.
 */
export function rbacObjects(permissions: readonly Permission[], subject: RbacSubject): JsonObject[] {
  const cluster = verbsByResource(permissions.filter((permission) => permission.namespace === undefined));
  const namespaces = [
    ...new Set(
      permissions.flatMap((permission) => (permission.namespace === undefined ? [] : [permission.namespace])),
    ),
  ].sort();
  const objects: JsonObject[] = [];
  if (cluster.size > 0) {
    objects.push({
      apiVersion: RBAC_API,
      kind: 'ClusterRole',
      metadata: { name: subject.name },
      rules: rulesOf(cluster),
    });
    objects.push(binding('ClusterRoleBinding', 'ClusterRole', subject, undefined));
  }
  for (const namespace of namespaces) {
    const own = verbsByResource(permissions.filter((permission) => permission.namespace === namespace));
    for (const [key, verbs] of own) {
      const granted = cluster.get(key);
      if (granted) for (const verb of granted) verbs.delete(verb);
      if (verbs.size === 0) own.delete(key);
    }
    if (own.size === 0) continue;
    objects.push({
      apiVersion: RBAC_API,
      kind: 'Role',
      metadata: { name: subject.name, namespace },
      rules: rulesOf(own),
    });
    objects.push(binding('RoleBinding', 'Role', subject, namespace));
  }
  return objects;
}

/** `group\0resource` → verbs. */
function verbsByResource(permissions: readonly Permission[]): Map<string, Set<string>> {
  const byResource = new Map<string, Set<string>>();
  for (const { group, resource, verbs } of permissions) {
    const key = `${group}\0${resource}`;
    const known = byResource.get(key) ?? new Set<string>();
    for (const verb of verbs) known.add(verb);
    byResource.set(key, known);
  }
  return byResource;
}

/** One rule per API group and set of verbs, resources sorted. */
function rulesOf(byResource: ReadonlyMap<string, ReadonlySet<string>>): JsonObject[] {
  const rules = new Map<string, { group: string; verbs: string[]; resources: string[] }>();
  for (const [key, verbSet] of byResource) {
    const [group = '', resource = ''] = key.split('\0');
    const verbs = sortVerbs([...verbSet]);
    const ruleKey = `${group}\0${verbs.join(',')}`;
    const rule = rules.get(ruleKey) ?? { group, verbs, resources: [] };
    rule.resources.push(resource);
    rules.set(ruleKey, rule);
  }
  return [...rules.values()]
    .map((rule) => ({ ...rule, resources: rule.resources.sort() }))
    .sort((a, b) => compare(a.group, b.group) || compare(a.resources.join(','), b.resources.join(',')))
    .map((rule) => ({ apiGroups: [rule.group], resources: rule.resources, verbs: rule.verbs }));
}

function sortVerbs(verbs: string[]): string[] {
  const rank = (verb: string): number => {
    const index = VERB_ORDER.indexOf(verb);
    return index < 0 ? VERB_ORDER.length : index;
  };
  return verbs.sort((a, b) => rank(a) - rank(b) || compare(a, b));
}

function binding(
  kind: 'ClusterRoleBinding' | 'RoleBinding',
  roleKind: 'ClusterRole' | 'Role',
  subject: RbacSubject,
  namespace: string | undefined,
): JsonObject {
  return {
    apiVersion: RBAC_API,
    kind,
    metadata: namespace === undefined ? { name: subject.name } : { name: subject.name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: subject.name },
    subjects: [
      { kind: 'ServiceAccount', name: subject.serviceAccount, namespace: subject.serviceAccountNamespace },
    ],
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
