/**
 * The resources of Kubernetes' built-in kinds, for `kaddon rbac` without a cluster to ask
 * (docs/rbac.md): the API group, the plural an RBAC rule names, and whether objects live in a
 * namespace. Keyed by `<group>/<kind>` (the core group is empty), whatever the version.
 */
export interface KindResource {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

const NAMESPACED = true;
const CLUSTER = false;

/** [group, kind, plural, namespaced] */
const TABLE: readonly (readonly [string, string, string, boolean])[] = [
  ['', 'ConfigMap', 'configmaps', NAMESPACED],
  ['', 'Endpoints', 'endpoints', NAMESPACED],
  ['', 'Event', 'events', NAMESPACED],
  ['', 'LimitRange', 'limitranges', NAMESPACED],
  ['', 'Namespace', 'namespaces', CLUSTER],
  ['', 'Node', 'nodes', CLUSTER],
  ['', 'PersistentVolume', 'persistentvolumes', CLUSTER],
  ['', 'PersistentVolumeClaim', 'persistentvolumeclaims', NAMESPACED],
  ['', 'Pod', 'pods', NAMESPACED],
  ['', 'PodTemplate', 'podtemplates', NAMESPACED],
  ['', 'ReplicationController', 'replicationcontrollers', NAMESPACED],
  ['', 'ResourceQuota', 'resourcequotas', NAMESPACED],
  ['', 'Secret', 'secrets', NAMESPACED],
  ['', 'Service', 'services', NAMESPACED],
  ['', 'ServiceAccount', 'serviceaccounts', NAMESPACED],
  ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', CLUSTER],
  ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', CLUSTER],
  [
    'admissionregistration.k8s.io',
    'ValidatingAdmissionPolicyBinding',
    'validatingadmissionpolicybindings',
    CLUSTER,
  ],
  [
    'admissionregistration.k8s.io',
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    CLUSTER,
  ],
  ['apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', CLUSTER],
  ['apiregistration.k8s.io', 'APIService', 'apiservices', CLUSTER],
  ['apps', 'ControllerRevision', 'controllerrevisions', NAMESPACED],
  ['apps', 'DaemonSet', 'daemonsets', NAMESPACED],
  ['apps', 'Deployment', 'deployments', NAMESPACED],
  ['apps', 'ReplicaSet', 'replicasets', NAMESPACED],
  ['apps', 'StatefulSet', 'statefulsets', NAMESPACED],
  ['autoscaling', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', NAMESPACED],
  ['batch', 'CronJob', 'cronjobs', NAMESPACED],
  ['batch', 'Job', 'jobs', NAMESPACED],
  ['certificates.k8s.io', 'CertificateSigningRequest', 'certificatesigningrequests', CLUSTER],
  ['coordination.k8s.io', 'Lease', 'leases', NAMESPACED],
  ['discovery.k8s.io', 'EndpointSlice', 'endpointslices', NAMESPACED],
  ['events.k8s.io', 'Event', 'events', NAMESPACED],
  ['flowcontrol.apiserver.k8s.io', 'FlowSchema', 'flowschemas', CLUSTER],
  ['flowcontrol.apiserver.k8s.io', 'PriorityLevelConfiguration', 'prioritylevelconfigurations', CLUSTER],
  ['networking.k8s.io', 'Ingress', 'ingresses', NAMESPACED],
  ['networking.k8s.io', 'IngressClass', 'ingressclasses', CLUSTER],
  ['networking.k8s.io', 'NetworkPolicy', 'networkpolicies', NAMESPACED],
  ['node.k8s.io', 'RuntimeClass', 'runtimeclasses', CLUSTER],
  ['policy', 'PodDisruptionBudget', 'poddisruptionbudgets', NAMESPACED],
  ['rbac.authorization.k8s.io', 'ClusterRole', 'clusterroles', CLUSTER],
  ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'clusterrolebindings', CLUSTER],
  ['rbac.authorization.k8s.io', 'Role', 'roles', NAMESPACED],
  ['rbac.authorization.k8s.io', 'RoleBinding', 'rolebindings', NAMESPACED],
  ['scheduling.k8s.io', 'PriorityClass', 'priorityclasses', CLUSTER],
  ['storage.k8s.io', 'CSIDriver', 'csidrivers', CLUSTER],
  ['storage.k8s.io', 'CSINode', 'csinodes', CLUSTER],
  ['storage.k8s.io', 'CSIStorageCapacity', 'csistoragecapacities', NAMESPACED],
  ['storage.k8s.io', 'StorageClass', 'storageclasses', CLUSTER],
  ['storage.k8s.io', 'VolumeAttachment', 'volumeattachments', CLUSTER],
];

const BY_KIND = new Map<string, KindResource>(
  TABLE.map(([group, kind, resource, namespaced]) => [`${group}/${kind}`, { group, resource, namespaced }]),
);

/** The group of an apiVersion: `apps/v1` → `apps`, `v1` → the core group ``. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The built-in resource of `kind` in `apiVersion`'s group, if it is one. */
export function builtinKind(apiVersion: string, kind: string): KindResource | undefined {
  return BY_KIND.get(`${groupOf(apiVersion)}/${kind}`);
}
