import path from 'node:path';
import { builtinKind, groupOf, type KindResource } from '../core/builtin-kinds.ts';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Permission } from '../core/rbac-rules.ts';
import type { Resource } from '../core/resource.ts';
import { moduleCrds } from '../delivery/helm/apply-crds.ts';
import { discoverGlobalHooks, discoverModuleHooks } from '../hooks/discover-hooks.ts';
import type { KubernetesBinding } from '../hooks/hook-config.ts';
import type { HookRunDeps } from '../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../jq/jq-engine.ts';
import type { ModulesTree } from '../loader/modules-tree.ts';
import { loadHooks } from './lifecycle-hooks.ts';

/** A kind neither the tree's CRDs, the built-in table nor the cluster's discovery knows. */
class UnknownKindError extends KaddonError {
  readonly code = 'rbac-kind-unknown';
  constructor(apiVersion: string, kind: string, where: string, discovery: boolean) {
    super(
      `${where}: kind '${kind}' of '${apiVersion || '(any version)'}' is not a built-in kind${discovery ? ' and the cluster does not serve it' : ''}.`,
      discovery
        ? "Install its CustomResourceDefinition in the cluster, or put it in the module's crds/ folder."
        : "Put its CustomResourceDefinition in the module's crds/ folder, or pass --kube-config so that kinds are resolved through the cluster's discovery.",
    );
  }
}

/** Asks the cluster which resource serves a kind (discovery); undefined when it does not. */
export type DiscoverKind = (apiVersion: string, kind: string) => Promise<KindResource | undefined>;

export interface RbacNeedsInput {
  readonly tree: ModulesTree;
  readonly enabledModules: readonly string[];
  /** Each enabled module's rendered slice, as `kaddon build` prints it. */
  readonly slices: ReadonlyMap<string, readonly Resource[]>;
  readonly globalHooksDir: string | undefined;
  /** ADDON_OPERATOR_NAMESPACE: its ConfigMap, Helm's release Secrets, the Lease, and releases' default. */
  readonly namespace: string;
  readonly crdFilterPrefixes: readonly string[];
  readonly runDeps: HookRunDeps;
  readonly jq: JqEngine;
  readonly discover?: DiscoverKind;
}

const READ = ['get', 'list', 'watch'];
/** Deliver, and follow health and drift with list+watch (docs/module-status.md "Health"). */
const DELIVER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];

/**
 * Module status (docs/module-status.md): the Module CRD created or updated at start, Module objects
 * and their status, and Events about them, which live in `default` as Events about cluster-scoped
 * objects must.
 */
const MODULE_STATUS_PERMISSIONS: readonly Permission[] = [
  {
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    verbs: ['get', 'create', 'update'],
  },
  { group: 'kaddon.dev', resource: 'modules', verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { group: 'kaddon.dev', resource: 'modules/status', verbs: ['patch'] },
  { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'], namespace: 'default' },
];

/**
 * Everything `kaddon operator` asks the API server for with this tree (docs/rbac.md): its own
 * objects, what the enabled modules deliver, what their hooks (and the global hooks) watch, and the
 * CRDs of their crds/ folders. Hooks are run with `--config` to read their bindings.
 */
export async function rbacNeeds(input: RbacNeedsInput): Promise<Permission[]> {
  const { namespace } = input;
  const permissions: Permission[] = [
    { group: '', resource: 'configmaps', verbs: [...READ, 'create', 'update', 'patch'], namespace },
    { group: '', resource: 'secrets', verbs: [...DELIVER, 'watch'], namespace },
    { group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'], namespace },
    // Events about its ConfigMap: deleted and re-created, uninstalls held (docs/lifecycle.md).
    { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'], namespace },
    ...MODULE_STATUS_PERMISSIONS,
  ];
  const crdKinds = new Map<string, KindResource>();
  for (const module of input.tree.modules.filter((candidate) =>
    input.enabledModules.includes(candidate.name),
  )) {
    const crds = await moduleCrds(path.join(module.dir, 'crds'), input.crdFilterPrefixes);
    for (const crd of crds) addCrdKind(crdKinds, crd);
    if (crds.length > 0)
      permissions.push({
        group: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        verbs: ['get', 'create', 'update', 'patch'],
      });
  }
  const resolve = async (apiVersion: string, kind: string, where: string): Promise<KindResource> => {
    const found =
      crdKinds.get(`${groupOf(apiVersion)}/${kind}`) ??
      (apiVersion === '' ? undefined : builtinKind(apiVersion, kind)) ??
      (apiVersion === '' ? builtinKindAnyGroup(kind) : undefined) ??
      (await input.discover?.(apiVersion, kind));
    if (!found) throw new UnknownKindError(apiVersion, kind, where, input.discover !== undefined);
    return found;
  };
  for (const [module, resources] of input.slices) {
    for (const resource of resources) {
      const apiVersion = typeof resource.obj.apiVersion === 'string' ? resource.obj.apiVersion : '';
      const kind = typeof resource.obj.kind === 'string' ? resource.obj.kind : '';
      const found = await resolve(apiVersion, kind, `module '${module}' ${resource.source}`);
      const metadata = isJsonObject(resource.obj.metadata) ? resource.obj.metadata : {};
      const objectNamespace = typeof metadata.namespace === 'string' ? metadata.namespace : namespace;
      permissions.push({
        group: found.group,
        resource: found.resource,
        verbs: DELIVER,
        namespace: found.namespaced ? objectNamespace : undefined,
      });
      // Granting a role needs every permission it grants, or escalate and bind.
      if (found.group === RBAC_GROUP && RBAC_KINDS.includes(kind))
        for (const roles of ['roles', 'clusterroles'])
          permissions.push({ group: RBAC_GROUP, resource: roles, verbs: ['escalate', 'bind'] });
    }
  }
  for (const { where, binding } of await watchedKinds(input)) {
    const found = await resolve(binding.apiVersion ?? '', binding.kind, where);
    const names = binding.namespace?.nameSelector?.matchNames;
    const scopes = found.namespaced && names && names.length > 0 ? names : [undefined];
    for (const scope of scopes)
      permissions.push({ group: found.group, resource: found.resource, verbs: READ, namespace: scope });
    if (binding.namespace?.labelSelector)
      permissions.push({ group: '', resource: 'namespaces', verbs: READ });
  }
  return widenToCreatedNamespaces(permissions, createdNamespaces(input.slices), namespace);
}

/** The Namespaces the modules deliver. */
function createdNamespaces(slices: ReadonlyMap<string, readonly Resource[]>): Set<string> {
  const names = new Set<string>();
  for (const resources of slices.values())
    for (const resource of resources)
      if (resource.obj.apiVersion === 'v1' && resource.obj.kind === 'Namespace') {
        const metadata = isJsonObject(resource.obj.metadata) ? resource.obj.metadata : {};
        if (typeof metadata.name === 'string') names.add(metadata.name);
      }
  return names;
}

/**
 * A Role can only be applied once its namespace exists, and a namespace a module delivers exists
 * only after the operator ran with the Role: what is needed in such a namespace is granted in every
 * namespace instead (docs/rbac.md "Namespaces the modules create").
 */
function widenToCreatedNamespaces(
  permissions: readonly Permission[],
  created: ReadonlySet<string>,
  own: string,
): Permission[] {
  return permissions.map((permission) =>
    permission.namespace !== undefined && permission.namespace !== own && created.has(permission.namespace)
      ? { ...permission, namespace: undefined }
      : permission,
  );
}

/** The kubernetes bindings of the global hooks and of the enabled modules' hooks. */
async function watchedKinds(
  input: RbacNeedsInput,
): Promise<{ readonly where: string; readonly binding: KubernetesBinding }[]> {
  const found: { where: string; binding: KubernetesBinding }[] = [];
  const collect = async (descriptors: Parameters<typeof loadHooks>[0], owner: string): Promise<void> => {
    const loaded = await loadHooks(descriptors, input.runDeps, input.jq);
    for (const hook of loaded.hooks)
      for (const binding of hook.config.kubernetes)
        found.push({ where: `${owner} hook '${hook.descriptor.name}' binding '${binding.name}'`, binding });
  };
  if (input.globalHooksDir) await collect((await discoverGlobalHooks(input.globalHooksDir)).hooks, 'global');
  for (const module of input.tree.modules.filter((candidate) =>
    input.enabledModules.includes(candidate.name),
  ))
    await collect((await discoverModuleHooks(module)).hooks, `module '${module.name}'`);
  return found;
}

function addCrdKind(kinds: Map<string, KindResource>, crd: JsonObject): void {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const names = isJsonObject(spec.names) ? spec.names : {};
  if (typeof spec.group !== 'string' || typeof names.kind !== 'string' || typeof names.plural !== 'string')
    return;
  kinds.set(`${spec.group}/${names.kind}`, {
    group: spec.group,
    resource: names.plural,
    namespaced: spec.scope !== 'Cluster',
  });
}

/** A binding without apiVersion: the built-in kind of that name, the core group first. */
function builtinKindAnyGroup(kind: string): KindResource | undefined {
  return (
    builtinKind('v1', kind) ??
    ['apps/v1', 'batch/v1', 'networking.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'policy/v1']
      .map((apiVersion) => builtinKind(apiVersion, kind))
      .find((candidate) => candidate !== undefined)
  );
}
