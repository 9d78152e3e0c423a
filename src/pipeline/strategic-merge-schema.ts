/**
 * The part of the Kubernetes v1.21.2 OpenAPI schema (the one kustomize v5.5.0's kyaml embeds) that a
 * strategic merge patch consults: which list fields are associative and by which keys (the
 * `x-kubernetes-patch-*` extensions of that schema's definitions). Only paths that lead to such a list are
 * modelled; every other list, and every list of a kind not in this table, is replaced wholesale by the patch.
 *
 * A list is associative when its `x-kubernetes-patch-strategy` contains `merge`; its keys are
 * `x-kubernetes-list-map-keys` if present, else `x-kubernetes-patch-merge-key`. Lists that are only
 * `x-kubernetes-list-type: map` (CSR, CRD, FlowSchema conditions, CSIStorageCapacityList items) have no
 * patch strategy and are therefore replaced. The `retainKeys` strategy (Deployment `strategy`, the
 * `retainKeys` half of volumes) and PodDisruptionBudget's `replace` on `selector` are ignored by kyaml.
 */
export interface FieldSchema {
  /** Map fields known to lead to an associative list. */
  readonly fields?: Readonly<Record<string, FieldSchema>>;
  /** Set on an associative list: its merge keys; empty for a list of scalars merged as a set. */
  readonly mergeKeys?: readonly string[];
  /** The schema of an associative list's elements. */
  readonly items?: FieldSchema;
}

const map = (fields: Record<string, FieldSchema>): FieldSchema => ({ fields });
const mergedBy = (keys: string[], items?: FieldSchema): FieldSchema =>
  items ? { mergeKeys: keys, items } : { mergeKeys: keys };
const scalarSet: FieldSchema = { mergeKeys: [] };
const byName = mergedBy(['name']);
const byType = mergedBy(['type']);

const objectMeta = map({ finalizers: scalarSet, ownerReferences: mergedBy(['uid']) });
const statusConditions = map({ conditions: byType });

const containerLists = {
  env: byName,
  volumeMounts: mergedBy(['mountPath']),
  volumeDevices: mergedBy(['devicePath']),
};
// EphemeralContainer's `ports` carry no patch strategy in v1.21.2, unlike Container's.
const container = map({ ...containerLists, ports: mergedBy(['containerPort', 'protocol']) });
const ephemeralContainer = map(containerLists);
const volume = map({ ephemeral: map({ volumeClaimTemplate: map({ metadata: objectMeta }) }) });

const podSpec = map({
  containers: mergedBy(['name'], container),
  initContainers: mergedBy(['name'], container),
  ephemeralContainers: mergedBy(['name'], ephemeralContainer),
  volumes: mergedBy(['name'], volume),
  imagePullSecrets: byName,
  hostAliases: mergedBy(['ip']),
  topologySpreadConstraints: mergedBy(['topologyKey', 'whenUnsatisfiable']),
});
const podTemplateSpec = map({ metadata: objectMeta, spec: podSpec });

/** Every built-in kind has ObjectMeta at `metadata`. */
const kind = (fields: Record<string, FieldSchema> = {}): FieldSchema =>
  map({ metadata: objectMeta, ...fields });

const workload = kind({ spec: map({ template: podTemplateSpec }), status: statusConditions });
const cronJob = kind({
  spec: map({ jobTemplate: map({ metadata: objectMeta, spec: map({ template: podTemplateSpec }) }) }),
});
const webhookConfiguration = kind({ webhooks: byName });
const withStatusConditions = kind({ status: statusConditions });
const csiNode = kind({ spec: map({ drivers: byName }) });

/** Kinds with a list worth merging, by apiVersion. */
const kindsWithLists: Readonly<Record<string, Readonly<Record<string, FieldSchema>>>> = {
  v1: {
    ComponentStatus: kind({ conditions: byType }),
    Namespace: withStatusConditions,
    Node: kind({
      spec: map({ podCIDRs: scalarSet }),
      status: map({ conditions: byType, addresses: byType }),
    }),
    PersistentVolumeClaim: withStatusConditions,
    Pod: kind({ spec: podSpec, status: map({ conditions: byType, podIPs: mergedBy(['ip']) }) }),
    PodTemplate: kind({ template: podTemplateSpec }),
    ReplicationController: workload,
    Service: kind({ spec: map({ ports: mergedBy(['port', 'protocol']) }), status: statusConditions }),
    ServiceAccount: kind({ secrets: byName }),
  },
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: webhookConfiguration,
    ValidatingWebhookConfiguration: webhookConfiguration,
  },
  'admissionregistration.k8s.io/v1beta1': {
    MutatingWebhookConfiguration: webhookConfiguration,
    ValidatingWebhookConfiguration: webhookConfiguration,
  },
  'apiregistration.k8s.io/v1': { APIService: withStatusConditions },
  'apiregistration.k8s.io/v1beta1': { APIService: withStatusConditions },
  'apps/v1': { DaemonSet: workload, Deployment: workload, ReplicaSet: workload, StatefulSet: workload },
  'batch/v1': { CronJob: cronJob, Job: workload },
  'batch/v1beta1': { CronJob: cronJob },
  'policy/v1': { PodDisruptionBudget: withStatusConditions },
  'policy/v1beta1': { PodDisruptionBudget: withStatusConditions },
  'storage.k8s.io/v1': { CSINode: csiNode },
  'storage.k8s.io/v1beta1': { CSINode: csiNode },
};

const reviews = 'LocalSubjectAccessReview SelfSubjectAccessReview SelfSubjectRulesReview SubjectAccessReview';
const rbac = 'ClusterRole ClusterRoleBinding Role RoleBinding';

/**
 * The other kinds the v1.21.2 schema serves: only `metadata.finalizers` / `ownerReferences` merge.
 * (apps/v1beta1, apps/v1beta2 and the extensions/v1beta1 workloads were no longer served.)
 */
const metadataOnlyKinds: Readonly<Record<string, string>> = {
  v1: 'Binding ConfigMap Endpoints Event LimitRange PersistentVolume ResourceQuota Secret',
  'apiextensions.k8s.io/v1': 'CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1': 'CustomResourceDefinition',
  'apps/v1': 'ControllerRevision',
  'authentication.k8s.io/v1': 'TokenRequest TokenReview',
  'authentication.k8s.io/v1beta1': 'TokenReview',
  'authorization.k8s.io/v1': reviews,
  'authorization.k8s.io/v1beta1': reviews,
  'autoscaling/v1': 'HorizontalPodAutoscaler Scale',
  'autoscaling/v2beta1': 'HorizontalPodAutoscaler',
  'autoscaling/v2beta2': 'HorizontalPodAutoscaler',
  'certificates.k8s.io/v1': 'CertificateSigningRequest',
  'certificates.k8s.io/v1beta1': 'CertificateSigningRequest',
  'coordination.k8s.io/v1': 'Lease',
  'coordination.k8s.io/v1beta1': 'Lease',
  'discovery.k8s.io/v1': 'EndpointSlice',
  'discovery.k8s.io/v1beta1': 'EndpointSlice',
  'events.k8s.io/v1': 'Event',
  'events.k8s.io/v1beta1': 'Event',
  'extensions/v1beta1': 'Ingress',
  'flowcontrol.apiserver.k8s.io/v1beta1': 'FlowSchema PriorityLevelConfiguration',
  'networking.k8s.io/v1': 'Ingress IngressClass NetworkPolicy',
  'networking.k8s.io/v1beta1': 'Ingress IngressClass',
  'node.k8s.io/v1': 'RuntimeClass',
  'node.k8s.io/v1beta1': 'RuntimeClass',
  'policy/v1beta1': 'Eviction PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1': rbac,
  'rbac.authorization.k8s.io/v1beta1': rbac,
  'scheduling.k8s.io/v1': 'PriorityClass',
  'scheduling.k8s.io/v1beta1': 'PriorityClass',
  'storage.k8s.io/v1': 'CSIDriver StorageClass VolumeAttachment',
  'storage.k8s.io/v1beta1': 'CSIDriver CSIStorageCapacity StorageClass VolumeAttachment',
};

const metadataOnly = kind();

/** The schema kyaml finds for an object's exact apiVersion and kind; undefined for CRs and unknown pairs. */
export function schemaForResource(apiVersion: string, kindName: string): FieldSchema | undefined {
  const withLists = ownEntry(kindsWithLists, apiVersion);
  const schema = withLists && ownEntry(withLists, kindName);
  if (schema) return schema;
  const names = ownEntry(metadataOnlyKinds, apiVersion);
  return names?.split(' ').includes(kindName) ? metadataOnly : undefined;
}

/** The schema of a map field; undefined when the field leads to nothing associative. */
export function fieldSchema(schema: FieldSchema | undefined, name: string): FieldSchema | undefined {
  return schema?.fields && ownEntry(schema.fields, name);
}

function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
