import type { FieldSpec } from '../core/kustomization.ts';

/**
 * kustomize v5.5.0's builtin field-spec tables (api/internal/konfig/builtinpluginconsts), entry for
 * entry and in the order kustomize lists them, quirks included: the IngressClass back-reference
 * names the group `networking.k8s.io/v1` and so never matches, the CronJob nfs varReference path
 * lacks a `spec/`, and the Secret table lists Ingress `spec/tls/secretName` twice.
 * `transformer-config.ts` turns these into the configuration kustomize actually uses.
 */

/** One `nameReference` entry: the referral's GVK and the fields of other objects naming it. */
export interface NameBackReferenceTable {
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly fieldSpecs: readonly FieldSpec[];
}

export const NAME_PREFIX_FIELD_SPECS: readonly FieldSpec[] = [{ path: 'metadata/name' }];

export const NAME_SUFFIX_FIELD_SPECS: readonly FieldSpec[] = [{ path: 'metadata/name' }];

export const NAMESPACE_FIELD_SPECS: readonly FieldSpec[] = [
  { kind: 'Namespace', path: 'metadata/name', create: true },
  { group: 'apiregistration.k8s.io', kind: 'APIService', path: 'spec/service/namespace', create: true },
  {
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    path: 'spec/conversion/webhook/clientConfig/service/namespace',
  },
];

/** metadatalabels.go: shared by commonLabels and templateLabels. */
const METADATA_LABELS_FIELD_SPECS: readonly FieldSpec[] = [
  { path: 'metadata/labels', create: true },
  { version: 'v1', kind: 'ReplicationController', path: 'spec/template/metadata/labels', create: true },
  { kind: 'Deployment', path: 'spec/template/metadata/labels', create: true },
  { kind: 'ReplicaSet', path: 'spec/template/metadata/labels', create: true },
  { kind: 'DaemonSet', path: 'spec/template/metadata/labels', create: true },
  { group: 'apps', kind: 'StatefulSet', path: 'spec/template/metadata/labels', create: true },
  { group: 'apps', kind: 'StatefulSet', path: 'spec/volumeClaimTemplates[]/metadata/labels', create: true },
  { group: 'batch', kind: 'Job', path: 'spec/template/metadata/labels', create: true },
  { group: 'batch', kind: 'CronJob', path: 'spec/jobTemplate/metadata/labels', create: true },
  { group: 'batch', kind: 'CronJob', path: 'spec/jobTemplate/spec/template/metadata/labels', create: true },
];

const POD_AFFINITY_SELECTORS = [
  'spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels',
  'spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels',
  'spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels',
];

export const COMMON_LABELS_FIELD_SPECS: readonly FieldSpec[] = [
  { version: 'v1', kind: 'Service', path: 'spec/selector', create: true },
  { version: 'v1', kind: 'ReplicationController', path: 'spec/selector', create: true },
  { kind: 'Deployment', path: 'spec/selector/matchLabels', create: true },
  ...POD_AFFINITY_SELECTORS.map((path) => ({ group: 'apps', kind: 'Deployment', path })),
  { kind: 'ReplicaSet', path: 'spec/selector/matchLabels', create: true },
  { kind: 'DaemonSet', path: 'spec/selector/matchLabels', create: true },
  { group: 'apps', kind: 'StatefulSet', path: 'spec/selector/matchLabels', create: true },
  ...POD_AFFINITY_SELECTORS.map((path) => ({ group: 'apps', kind: 'StatefulSet', path })),
  { group: 'batch', kind: 'Job', path: 'spec/selector/matchLabels' },
  { group: 'batch', kind: 'CronJob', path: 'spec/jobTemplate/spec/selector/matchLabels' },
  { group: 'policy', kind: 'PodDisruptionBudget', path: 'spec/selector/matchLabels' },
  { group: 'networking.k8s.io', kind: 'NetworkPolicy', path: 'spec/podSelector/matchLabels' },
  { group: 'networking.k8s.io', kind: 'NetworkPolicy', path: 'spec/ingress/from/podSelector/matchLabels' },
  { group: 'networking.k8s.io', kind: 'NetworkPolicy', path: 'spec/egress/to/podSelector/matchLabels' },
  ...METADATA_LABELS_FIELD_SPECS,
];

export const TEMPLATE_LABELS_FIELD_SPECS: readonly FieldSpec[] = METADATA_LABELS_FIELD_SPECS;

export const COMMON_ANNOTATIONS_FIELD_SPECS: readonly FieldSpec[] = [
  { path: 'metadata/annotations', create: true },
  { version: 'v1', kind: 'ReplicationController', path: 'spec/template/metadata/annotations', create: true },
  { kind: 'Deployment', path: 'spec/template/metadata/annotations', create: true },
  { kind: 'ReplicaSet', path: 'spec/template/metadata/annotations', create: true },
  { kind: 'DaemonSet', path: 'spec/template/metadata/annotations', create: true },
  { kind: 'StatefulSet', path: 'spec/template/metadata/annotations', create: true },
  { group: 'batch', kind: 'Job', path: 'spec/template/metadata/annotations', create: true },
  { group: 'batch', kind: 'CronJob', path: 'spec/jobTemplate/metadata/annotations', create: true },
  {
    group: 'batch',
    kind: 'CronJob',
    path: 'spec/jobTemplate/spec/template/metadata/annotations',
    create: true,
  },
];

export const IMAGES_FIELD_SPECS: readonly FieldSpec[] = [
  { path: 'spec/containers[]/image', create: true },
  { path: 'spec/initContainers[]/image', create: true },
  { path: 'spec/template/spec/containers[]/image', create: true },
  { path: 'spec/template/spec/initContainers[]/image', create: true },
];

export const REPLICAS_FIELD_SPECS: readonly FieldSpec[] = [
  { kind: 'Deployment', path: 'spec/replicas', create: true },
  { kind: 'ReplicationController', path: 'spec/replicas', create: true },
  { kind: 'ReplicaSet', path: 'spec/replicas', create: true },
  { kind: 'StatefulSet', path: 'spec/replicas', create: true },
];

/** The container fields `$(VAR)` is expanded in, under a pod spec at `podSpec`. */
function containerVarFields(kind: string, podSpec: string): FieldSpec[] {
  const fields = ['args', 'command', 'env/value', 'volumeMounts/mountPath'];
  return ['containers', 'initContainers'].flatMap((list) =>
    fields.map((field) => ({ kind, path: `${podSpec}/${list}/${field}` })),
  );
}

export const VAR_REFERENCE_FIELD_SPECS: readonly FieldSpec[] = [
  ...containerVarFields('CronJob', 'spec/jobTemplate/spec/template/spec'),
  { kind: 'CronJob', path: 'spec/jobTemplate/spec/template/volumes/nfs/server' },
  ...containerVarFields('DaemonSet', 'spec/template/spec'),
  { kind: 'DaemonSet', path: 'spec/template/spec/volumes/nfs/server' },
  ...containerVarFields('Deployment', 'spec/template/spec'),
  { kind: 'Deployment', path: 'spec/template/spec/volumes/nfs/server' },
  { kind: 'Deployment', path: 'spec/template/metadata/annotations' },
  { kind: 'Ingress', path: 'spec/rules/host' },
  { kind: 'Ingress', path: 'spec/tls/hosts' },
  { kind: 'Ingress', path: 'spec/tls/secretName' },
  ...containerVarFields('Job', 'spec/template/spec'),
  { kind: 'Job', path: 'spec/template/spec/volumes/nfs/server' },
  ...containerVarFields('Pod', 'spec'),
  { kind: 'Pod', path: 'spec/volumes/nfs/server' },
  ...containerVarFields('ReplicaSet', 'spec/template/spec'),
  { kind: 'ReplicaSet', path: 'spec/template/spec/volumes/nfs/server' },
  { kind: 'Service', path: 'spec/ports/port' },
  { kind: 'Service', path: 'spec/ports/targetPort' },
  ...containerVarFields('StatefulSet', 'spec/template/spec'),
  { kind: 'StatefulSet', path: 'spec/volumeClaimTemplates/spec/nfs/server' },
  { kind: 'PersistentVolume', path: 'spec/nfs/server' },
  { path: 'metadata/labels' },
  { path: 'metadata/annotations' },
];

/** Where a pod spec sits in each workload kind; Pod's own entries also pin version v1. */
const POD_SPEC_HOLDERS: readonly (readonly [kind: string, podSpec: string])[] = [
  ['PodTemplate', 'template/spec'],
  ['Deployment', 'spec/template/spec'],
  ['ReplicaSet', 'spec/template/spec'],
  ['DaemonSet', 'spec/template/spec'],
  ['StatefulSet', 'spec/template/spec'],
  ['Job', 'spec/template/spec'],
];

/** The fields of a pod spec naming a ConfigMap (`ref` configMap) or a Secret (`ref` secret). */
function podSpecReferences(
  kind: string,
  podSpec: string,
  referral: 'configMap' | 'secret',
  version?: string,
): FieldSpec[] {
  const keyRef = referral === 'configMap' ? 'configMapKeyRef' : 'secretKeyRef';
  const envFromRef = referral === 'configMap' ? 'configMapRef' : 'secretRef';
  const volume = referral === 'configMap' ? 'configMap/name' : 'secret/secretName';
  const paths = [
    `${podSpec}/volumes/${volume}`,
    `${podSpec}/containers/env/valueFrom/${keyRef}/name`,
    `${podSpec}/initContainers/env/valueFrom/${keyRef}/name`,
    `${podSpec}/containers/envFrom/${envFromRef}/name`,
    `${podSpec}/initContainers/envFrom/${envFromRef}/name`,
    ...(referral === 'secret' ? [`${podSpec}/imagePullSecrets/name`] : []),
    `${podSpec}/volumes/projected/sources/${referral}/name`,
  ];
  return paths.map((path) => (version ? { version, kind, path } : { kind, path }));
}

/** CronJob lists its ConfigMap/Secret references in its own order. */
function cronJobReferences(referral: 'configMap' | 'secret'): FieldSpec[] {
  const podSpec = 'spec/jobTemplate/spec/template/spec';
  const keyRef = referral === 'configMap' ? 'configMapKeyRef' : 'secretKeyRef';
  const envFromRef = referral === 'configMap' ? 'configMapRef' : 'secretRef';
  const volume = referral === 'configMap' ? 'configMap/name' : 'secret/secretName';
  const paths = [
    `${podSpec}/volumes/${volume}`,
    `${podSpec}/volumes/projected/sources/${referral}/name`,
    `${podSpec}/containers/env/valueFrom/${keyRef}/name`,
    `${podSpec}/initContainers/env/valueFrom/${keyRef}/name`,
    `${podSpec}/containers/envFrom/${envFromRef}/name`,
    `${podSpec}/initContainers/envFrom/${envFromRef}/name`,
    ...(referral === 'secret' ? [`${podSpec}/imagePullSecrets/name`] : []),
  ];
  return paths.map((path) => ({ kind: 'CronJob', path }));
}

function workloadReferences(referral: 'configMap' | 'secret'): FieldSpec[] {
  return [
    ...podSpecReferences('Pod', 'spec', referral, 'v1'),
    ...POD_SPEC_HOLDERS.flatMap(([kind, podSpec]) => podSpecReferences(kind, podSpec, referral)),
    ...cronJobReferences(referral),
  ];
}

/** Fields naming a ServiceAccount, PVC or PriorityClass in a pod spec, per workload kind. */
function podSpecField(field: string): FieldSpec[] {
  return [
    { kind: 'Pod', path: `spec/${field}` },
    { kind: 'StatefulSet', path: `spec/template/spec/${field}` },
    { kind: 'Deployment', path: `spec/template/spec/${field}` },
    { kind: 'ReplicationController', path: `spec/template/spec/${field}` },
    { kind: 'CronJob', path: `spec/jobTemplate/spec/template/spec/${field}` },
    { kind: 'Job', path: `spec/template/spec/${field}` },
    { kind: 'DaemonSet', path: `spec/template/spec/${field}` },
  ];
}

const SCALE_TARGET: readonly FieldSpec[] = [
  { kind: 'HorizontalPodAutoscaler', path: 'spec/scaleTargetRef/name' },
];

export const NAME_REFERENCE_TABLE: readonly NameBackReferenceTable[] = [
  { kind: 'Deployment', fieldSpecs: SCALE_TARGET },
  { kind: 'ReplicationController', fieldSpecs: SCALE_TARGET },
  { kind: 'ReplicaSet', fieldSpecs: SCALE_TARGET },
  { kind: 'StatefulSet', fieldSpecs: SCALE_TARGET },
  {
    kind: 'ConfigMap',
    version: 'v1',
    fieldSpecs: [
      ...workloadReferences('configMap'),
      { kind: 'Node', path: 'spec/configSource/configMap' },
      { kind: 'Role', path: 'rules/resourceNames' },
      { kind: 'ClusterRole', path: 'rules/resourceNames' },
      {
        kind: 'Ingress',
        path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap',
      },
    ],
  },
  {
    kind: 'Secret',
    version: 'v1',
    fieldSpecs: [
      ...workloadReferences('secret'),
      { kind: 'Ingress', path: 'spec/tls/secretName' },
      { kind: 'Ingress', path: 'metadata/annotations/ingress.kubernetes.io\\/auth-secret' },
      { kind: 'Ingress', path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret' },
      { kind: 'Ingress', path: 'metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret' },
      { kind: 'Ingress', path: 'spec/tls/secretName' },
      { kind: 'ServiceAccount', path: 'imagePullSecrets/name' },
      { kind: 'StorageClass', path: 'parameters/secretName' },
      { kind: 'StorageClass', path: 'parameters/adminSecretName' },
      { kind: 'StorageClass', path: 'parameters/userSecretName' },
      { kind: 'StorageClass', path: 'parameters/secretRef' },
      { kind: 'Role', path: 'rules/resourceNames' },
      { kind: 'ClusterRole', path: 'rules/resourceNames' },
      {
        group: 'serving.knative.dev',
        version: 'v1',
        kind: 'Service',
        path: 'spec/template/spec/containers/env/valueFrom/secretKeyRef/name',
      },
      { kind: 'PersistentVolume', path: 'spec/azureFile/secretName' },
    ],
  },
  {
    kind: 'Service',
    version: 'v1',
    fieldSpecs: [
      { group: 'apps', kind: 'StatefulSet', path: 'spec/serviceName' },
      { kind: 'Ingress', path: 'spec/rules/http/paths/backend/serviceName' },
      { kind: 'Ingress', path: 'spec/backend/serviceName' },
      { kind: 'Ingress', path: 'spec/rules/http/paths/backend/service/name' },
      { kind: 'Ingress', path: 'spec/defaultBackend/service/name' },
      { group: 'apiregistration.k8s.io', kind: 'APIService', path: 'spec/service/name' },
      {
        group: 'admissionregistration.k8s.io',
        kind: 'ValidatingWebhookConfiguration',
        path: 'webhooks/clientConfig/service',
      },
      {
        group: 'admissionregistration.k8s.io',
        kind: 'MutatingWebhookConfiguration',
        path: 'webhooks/clientConfig/service',
      },
    ],
  },
  {
    group: 'rbac.authorization.k8s.io',
    kind: 'Role',
    fieldSpecs: [{ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', path: 'roleRef/name' }],
  },
  {
    group: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    fieldSpecs: [
      { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', path: 'roleRef/name' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', path: 'roleRef/name' },
    ],
  },
  {
    kind: 'ServiceAccount',
    version: 'v1',
    fieldSpecs: [
      { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', path: 'subjects' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', path: 'subjects' },
      ...podSpecField('serviceAccountName'),
    ],
  },
  {
    kind: 'PersistentVolumeClaim',
    version: 'v1',
    fieldSpecs: podSpecField('volumes/persistentVolumeClaim/claimName'),
  },
  {
    kind: 'PersistentVolume',
    version: 'v1',
    fieldSpecs: [
      { kind: 'PersistentVolumeClaim', path: 'spec/volumeName' },
      { kind: 'ClusterRole', path: 'rules/resourceNames' },
    ],
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    fieldSpecs: [
      { kind: 'PersistentVolume', path: 'spec/storageClassName' },
      { kind: 'PersistentVolumeClaim', path: 'spec/storageClassName' },
      { kind: 'StatefulSet', path: 'spec/volumeClaimTemplates/spec/storageClassName' },
    ],
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    fieldSpecs: podSpecField('priorityClassName'),
  },
  {
    group: 'networking.k8s.io/v1',
    version: 'v1',
    kind: 'IngressClass',
    fieldSpecs: [{ kind: 'Ingress', path: 'spec/ingressClassName' }],
  },
  {
    group: 'admissionregistration.k8s.io',
    kind: 'ValidatingAdmissionPolicy',
    fieldSpecs: [
      {
        group: 'admissionregistration.k8s.io',
        kind: 'ValidatingAdmissionPolicyBinding',
        path: 'spec/policyName',
      },
    ],
  },
];
