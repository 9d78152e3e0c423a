import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/**
 * kstatus' results, as Flux and `kubectl wait` read them (docs/module-status.md "Health rules"):
 * Current is healthy, InProgress still moving, Failed will not get there without a change.
 */
export type HealthStatus = 'Current' | 'InProgress' | 'Failed' | 'Terminating';

export interface ObjectHealth {
  readonly status: HealthStatus;
  /** Why, for a person: `0 of 2 replicas available`. Empty when Current. */
  readonly message: string;
}

const CURRENT: ObjectHealth = { status: 'Current', message: '' };

type KindRule = (object: JsonObject, status: JsonObject) => ObjectHealth;

/** The kinds with rules of their own; any other kind is judged by its generic conditions only. */
const KIND_RULES: Readonly<Record<string, KindRule>> = {
  'apps/Deployment': deploymentHealth,
  'apps/StatefulSet': statefulSetHealth,
  'apps/DaemonSet': daemonSetHealth,
  'batch/Job': jobHealth,
  '/PersistentVolumeClaim': pvcHealth,
  '/Service': serviceHealth,
  '/Pod': podHealth,
  'apiextensions.k8s.io/CustomResourceDefinition': crdHealth,
  'apiregistration.k8s.io/APIService': apiServiceHealth,
};

/**
 * Whether an object's health needs watching: kinds with a rule of their own (a Service only as a
 * LoadBalancer) and custom resources. Other built-in kinds (ConfigMap, Role, …) are Current as
 * soon as they exist. `builtin` says whether the kind is a built-in one.
 */
export function isHealthFollowed(object: JsonObject, builtin: boolean): boolean {
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const key = `${groupOf(object)}/${kind}`;
  if (key === '/Service') return asObject(object.spec).type === 'LoadBalancer';
  return KIND_RULES[key] !== undefined || !builtin;
}

/** The health of one live object: kstatus' generic checks in its order, then the rule of its kind. */
export function objectHealth(object: JsonObject): ObjectHealth {
  const metadata = asObject(object.metadata);
  if (typeof metadata.deletionTimestamp === 'string')
    return { status: 'Terminating', message: 'being deleted' };
  const status = asObject(object.status);
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const rule = KIND_RULES[`${groupOf(object)}/${kind}`];
  const generation = metadata.generation;
  const observed = status.observedGeneration;
  if (kind === 'DaemonSet' && rule !== undefined && (generation === undefined || observed === undefined))
    return inProgress('the controller has not observed it yet');
  if (typeof generation === 'number' && typeof observed === 'number' && observed !== generation)
    return inProgress(`generation ${generation} not observed yet (observed ${observed})`);
  const reconciling = conditionOf(status, 'Reconciling');
  if (reconciling?.status === 'True') return inProgress(conditionText(reconciling, 'reconciling'));
  const stalled = conditionOf(status, 'Stalled');
  if (stalled?.status === 'True') return failed(conditionText(stalled, 'stalled'));
  if (rule !== undefined) return rule(object, status);
  return genericHealth(status);
}

/** The fields of `spec` the kind rules read; objectHealth reads nothing else of it. */
const HEALTH_SPEC_FIELDS = ['replicas', 'updateStrategy', 'type', 'clusterIP'] as const;
/** The fields of `metadata` objectHealth reads, with those that name the object and its version. */
const HEALTH_METADATA_FIELDS = [
  'name',
  'namespace',
  'resourceVersion',
  'generation',
  'deletionTimestamp',
] as const;

/**
 * What objectHealth reads of an object, with its name, namespace and resourceVersion: what a watch
 * that only follows health keeps of each object (DeliveredHealth), instead of the whole object with
 * its pod template and managedFields. objectHealth gives the same for it as for the whole object
 * (object-health.test.ts checks every case both ways): a rule that reads another field of `spec` or
 * `metadata` adds it here.
 */
export function healthFields(object: JsonObject): JsonObject {
  const kept: JsonObject = { metadata: pick(asObject(object.metadata), HEALTH_METADATA_FIELDS) };
  if (object.apiVersion !== undefined) kept.apiVersion = object.apiVersion;
  if (object.kind !== undefined) kept.kind = object.kind;
  if (isJsonObject(object.spec)) kept.spec = pick(object.spec, HEALTH_SPEC_FIELDS);
  if (object.status !== undefined) kept.status = object.status;
  return kept;
}

function pick(from: JsonObject, fields: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const field of fields) if (from[field] !== undefined) picked[field] = from[field];
  return picked;
}

/**
 * A custom resource: kstatus reads only Reconciling and Stalled; kaddon also reads `Ready`, which
 * most controllers set (docs/module-status.md "Health rules"). No status at all is healthy.
 */
function genericHealth(status: JsonObject): ObjectHealth {
  const ready = conditionOf(status, 'Ready');
  if (ready === undefined || ready.status === 'True') return CURRENT;
  if (ready.status === 'False' && ready.reason !== undefined && /fail|error/i.test(ready.reason))
    return failed(conditionText(ready, 'not ready'));
  return inProgress(conditionText(ready, 'not ready'));
}

function deploymentHealth(object: JsonObject, status: JsonObject): ObjectHealth {
  const spec = asObject(object.spec);
  const desired = numberOr(spec.replicas, 1);
  const replicas = numberOr(status.replicas, 0);
  const updated = numberOr(status.updatedReplicas, 0);
  const ready = numberOr(status.readyReplicas, 0);
  const available = numberOr(status.availableReplicas, 0);
  const progressing = conditionOf(status, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return failed(conditionText(progressing, 'progress deadline exceeded'));
  if (desired > replicas) return inProgress(`${replicas} of ${desired} replicas created`);
  if (desired > updated) return inProgress(`${updated} of ${desired} replicas updated`);
  if (replicas > desired) return inProgress(`${replicas - desired} old replicas are still terminating`);
  if (updated > available) return inProgress(`${available} of ${updated} updated replicas available`);
  if (desired > ready) return inProgress(`${ready} of ${desired} replicas ready`);
  if (progressing?.status !== 'True' || progressing.reason !== 'NewReplicaSetAvailable')
    return inProgress('rollout not complete');
  if (conditionOf(status, 'Available')?.status !== 'True') return inProgress('not available');
  return CURRENT;
}

function statefulSetHealth(object: JsonObject, status: JsonObject): ObjectHealth {
  const spec = asObject(object.spec);
  const strategy = asObject(spec.updateStrategy);
  if (strategy.type === 'OnDelete') return CURRENT;
  const desired = numberOr(spec.replicas, 1);
  const replicas = numberOr(status.replicas, 0);
  const ready = numberOr(status.readyReplicas, 0);
  const current = numberOr(status.currentReplicas, 0);
  const updated = numberOr(status.updatedReplicas, 0);
  if (desired > replicas) return inProgress(`${replicas} of ${desired} replicas created`);
  if (desired > ready) return inProgress(`${ready} of ${desired} replicas ready`);
  if (replicas > desired) return inProgress(`${replicas - desired} extra pods are still terminating`);
  const partition = numberOr(asObject(strategy.rollingUpdate).partition, 0);
  if (partition > 0) {
    return updated < desired - partition
      ? inProgress(`${updated} of ${desired - partition} replicas updated`)
      : CURRENT;
  }
  if (desired > current) return inProgress(`${current} of ${desired} replicas at the current revision`);
  if (status.currentRevision !== status.updateRevision) return inProgress('rolling update in progress');
  return CURRENT;
}

function daemonSetHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  const desired = status.desiredNumberScheduled;
  if (typeof desired !== 'number') return inProgress('the controller has not scheduled it yet');
  const counts: [string, JsonValue | undefined][] = [
    ['scheduled', status.currentNumberScheduled],
    ['updated', status.updatedNumberScheduled],
    ['available', status.numberAvailable],
    ['ready', status.numberReady],
  ];
  for (const [what, value] of counts) {
    const count = numberOr(value, 0);
    if (count < desired) return inProgress(`${count} of ${desired} pods ${what}`);
  }
  return CURRENT;
}

function jobHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  if (conditionOf(status, 'Complete')?.status === 'True') return CURRENT;
  if (conditionOf(status, 'Suspended')?.status === 'True') return CURRENT;
  const failedCondition = conditionOf(status, 'Failed');
  if (failedCondition?.status === 'True') return failed(conditionText(failedCondition, 'job failed'));
  if (status.startTime === undefined) return inProgress('job not started');
  return CURRENT;
}

function pvcHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  return status.phase === 'Bound'
    ? CURRENT
    : inProgress(`phase ${textOr(status.phase, 'Pending')}, not Bound`);
}

/** kstatus waits only for a clusterIP; a LoadBalancer also waits here for its ingress address. */
function serviceHealth(object: JsonObject, status: JsonObject): ObjectHealth {
  const spec = asObject(object.spec);
  if (spec.type !== 'LoadBalancer') return CURRENT;
  if (typeof spec.clusterIP !== 'string' || spec.clusterIP === '') return inProgress('no cluster IP yet');
  const ingress = asObject(status.loadBalancer).ingress;
  return Array.isArray(ingress) && ingress.length > 0 ? CURRENT : inProgress('no load balancer address yet');
}

function podHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  const phase = status.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return CURRENT;
  const statuses = Array.isArray(status.containerStatuses) ? status.containerStatuses : [];
  for (const container of statuses.filter(isJsonObject)) {
    const waiting = asObject(asObject(container.state).waiting);
    if (waiting.reason === 'CrashLoopBackOff')
      return failed(`container ${textOr(container.name, '?')} in CrashLoopBackOff`);
  }
  if (phase === 'Running' && conditionOf(status, 'Ready')?.status === 'True') return CURRENT;
  const scheduled = conditionOf(status, 'PodScheduled');
  if (scheduled?.reason === 'Unschedulable') return inProgress(conditionText(scheduled, 'unschedulable'));
  return inProgress(`phase ${textOr(phase, 'Pending')}`);
}

function crdHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  const names = conditionOf(status, 'NamesAccepted');
  if (names?.status === 'False') return failed(conditionText(names, 'names not accepted'));
  const established = conditionOf(status, 'Established');
  if (established?.status === 'True') return CURRENT;
  if (established?.status === 'False' && established.reason !== 'Installing')
    return failed(conditionText(established, 'not established'));
  return inProgress('not established yet');
}

/** kstatus has no rule for APIService: kaddon waits for `Available`. */
function apiServiceHealth(_object: JsonObject, status: JsonObject): ObjectHealth {
  const available = conditionOf(status, 'Available');
  return available?.status === 'True' ? CURRENT : inProgress(conditionText(available, 'not available'));
}

interface Condition {
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

function conditionOf(status: JsonObject, type: string): Condition | undefined {
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const found = conditions.find((condition) => isJsonObject(condition) && condition.type === type);
  if (!isJsonObject(found)) return undefined;
  return {
    ...(typeof found.status === 'string' ? { status: found.status } : {}),
    ...(typeof found.reason === 'string' ? { reason: found.reason } : {}),
    ...(typeof found.message === 'string' ? { message: found.message } : {}),
  };
}

function conditionText(condition: Condition | undefined, fallback: string): string {
  if (condition === undefined) return fallback;
  const reason = condition.reason ?? fallback;
  return condition.message ? `${reason}: ${condition.message}` : reason;
}

function groupOf(object: JsonObject): string {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function asObject(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}

function textOr(value: JsonValue | undefined, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function numberOr(value: JsonValue | undefined, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function inProgress(message: string): ObjectHealth {
  return { status: 'InProgress', message };
}

function failed(message: string): ObjectHealth {
  return { status: 'Failed', message };
}
