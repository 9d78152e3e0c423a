import type { KubeClient } from '../../src/delivery/kube-client.ts';

/** A namespaced RBAC rule, as in a Role. */
interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly verbs: readonly string[];
}

/** What one user of the status page may do: read Module objects, and what `rules` allow in the namespace. */
export interface UiUser {
  readonly modules: boolean;
  readonly rules?: readonly Rule[];
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/**
 * The status page's users as ServiceAccounts in `namespace`, each with an hour's token (what
 * `kubectl create token` gives): `get`/`list` on modules.kaddon.dev for those with `modules`, and a
 * Role of their own with their `rules`. Answers each user's token.
 */
export async function signInUsers(
  api: Pick<KubeClient, 'request'>,
  namespace: string,
  users: Readonly<Record<string, UiUser>>,
): Promise<Record<string, string>> {
  const post = (collection: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
    api.request('POST', collection, { body });
  const subject = (name: string): Record<string, string> => ({ kind: 'ServiceAccount', name, namespace });
  const tokens: Record<string, string> = {};
  for (const [name, user] of Object.entries(users)) {
    await post(`/api/v1/namespaces/${namespace}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
    const minted = await post(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    });
    tokens[name] = (minted.status as { token: string }).token;
    if (user.rules === undefined) continue;
    await post(`${RBAC}/namespaces/${namespace}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name },
      rules: user.rules,
    });
    await post(`${RBAC}/namespaces/${namespace}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [subject(name)],
    });
  }
  const readers = Object.keys(users).filter((name) => users[name]?.modules === true);
  const role = `kaddon-ui-modules-${namespace}`;
  await post(`${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: role },
    rules: [{ apiGroups: ['kaddon.dev'], resources: ['modules'], verbs: ['get', 'list'] }],
  });
  await post(`${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: readers.map(subject),
  });
  return tokens;
}

/** `get` on the operator's ConfigMap `addon-operator`: module values and hooks' output on the page. */
export const CONFIG_MAP_READ: Rule = {
  apiGroups: [''],
  resources: ['configmaps'],
  resourceNames: ['addon-operator'],
  verbs: ['get'],
};

/** `get` on Secrets in the namespace: values marked secret in clear. */
export const SECRETS_READ: Rule = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
