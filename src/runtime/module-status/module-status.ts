import type { HealthStatus } from '../../core/object-health.ts';
import type { FailureReason } from './failure-reason.ts';

/** Every reason the Ready condition can carry (docs/module-status.md "Conditions"). */
type ReadyReason =
  | 'Succeeded'
  | 'Progressing'
  | 'Disabled'
  | 'HealthCheckFailed'
  | 'DependencyNotReady'
  | 'Drifted'
  | 'Maintenance'
  | FailureReason;

/** A metav1.Condition. */
export interface ModuleCondition {
  readonly type: 'Ready' | 'Reconciling' | 'Stalled' | 'Maintenance';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: ReadyReason;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** What kaddon knows of one module; ModuleStatusTracker keeps it, moduleStatusOf reads it. */
export interface ModuleRecord {
  enabled: boolean;
  /** A ModuleRun (or a delivery left running) is under way. */
  running: boolean;
  /** The last run's failure, cleared by a success. */
  failure: { readonly reason: ReadyReason; readonly message: string } | undefined;
  delivered:
    | {
        readonly at: number;
        readonly checksum: string;
        readonly helmRevision: number | undefined;
        readonly gitRevision: string | undefined;
        readonly objects: number;
      }
    | undefined;
  health: { readonly status: HealthStatus | 'Unknown'; readonly message: string };
  /** When the health last stopped being Current after a delivery: the health timeout counts from it. */
  healthTimedOut: boolean;
  /** The module it waits for (DependencyNotReady). */
  waitingFor: string | undefined;
  /** The last drift check that found drift (docs/drift.md); cleared by a delivery. */
  drift:
    { readonly at: number; readonly objects: readonly string[]; readonly corrected: boolean } | undefined;
  /** Hands off (docs/operations.md): since when, whether hooks are held, whether a delivery waits. */
  maintenance:
    { readonly since: number; readonly hooks: 'Run' | 'Stop'; readonly pending: boolean } | undefined;
  /** The reconcile request (reconcile.kaddon.dev/requestedAt) the last run answered. */
  lastHandledReconcileAt: string | undefined;
  /** The Module object's metadata.generation last seen. */
  generation: number;
}

export function newModuleRecord(): ModuleRecord {
  return {
    enabled: true,
    running: false,
    failure: undefined,
    delivered: undefined,
    health: { status: 'Unknown', message: '' },
    healthTimedOut: false,
    waitingFor: undefined,
    drift: undefined,
    maintenance: undefined,
    lastHandledReconcileAt: undefined,
    generation: 1,
  };
}

/** The Ready condition's status, reason and message, without times. */
export interface ReadyState {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: ReadyReason;
  readonly message: string;
  /** Reconciling=True (InProgress) or Stalled=True (Failed) beside it; neither when done. */
  readonly beside: 'Reconciling' | 'Stalled' | 'Maintenance' | undefined;
}

/**
 * The Module's Ready condition from what kaddon knows, in order: disabled, a failed run, a
 * dependency not ready, a run under way, nothing delivered yet, then the health of what was
 * delivered (docs/module-status.md "Conditions").
 */
export function readyStateOf(record: ModuleRecord): ReadyState {
  const { maintenance } = record;
  if (maintenance !== undefined)
    return {
      status: 'Unknown',
      reason: 'Maintenance',
      message: `in maintenance since ${new Date(maintenance.since).toISOString()}: kaddon does not deliver, correct drift or uninstall it${maintenance.hooks === 'Stop' ? ', and holds its hooks' : ''}${maintenance.pending ? '; a delivery is held until it ends' : ''}; spec.maintenance Off ends it`,
      beside: 'Maintenance',
    };
  if (!record.enabled)
    return { status: 'False', reason: 'Disabled', message: 'the module is disabled', beside: undefined };
  if (record.failure !== undefined)
    return {
      status: 'False',
      reason: record.failure.reason,
      message: record.failure.message,
      beside: 'Stalled',
    };
  if (record.waitingFor !== undefined)
    return {
      status: 'False',
      reason: 'DependencyNotReady',
      message: `waiting for ${record.waitingFor} to be Ready`,
      beside: 'Reconciling',
    };
  if (record.running || record.delivered === undefined)
    return {
      status: 'Unknown',
      reason: 'Progressing',
      message: 'the module is being run',
      beside: 'Reconciling',
    };
  const { health, drift } = record;
  // docs/module-status.md "Conditions": Ready means the live objects are what the release holds.
  if (drift !== undefined && !drift.corrected)
    return {
      status: 'False',
      reason: 'Drifted',
      message: `${String(drift.objects.length)} object(s) differ from the release (KADDON_DRIFT_MODE=warn leaves them): ${drift.objects.slice(0, 5).join('; ')}`,
      beside: undefined,
    };
  const objects = `${record.delivered.objects} object${record.delivered.objects === 1 ? '' : 's'}`;
  if (health.status === 'Current' || (health.status === 'Unknown' && record.delivered.objects === 0))
    return {
      status: 'True',
      reason: 'Succeeded',
      message: `delivered; ${objects} healthy`,
      beside: undefined,
    };
  if (health.status === 'Failed' || record.healthTimedOut)
    return { status: 'False', reason: 'HealthCheckFailed', message: health.message, beside: 'Stalled' };
  return {
    status: 'Unknown',
    reason: 'Progressing',
    message: `delivered; waiting for ${health.message || 'its objects to become healthy'}`,
    beside: 'Reconciling',
  };
}

/** The conditions list, keeping each condition's lastTransitionTime while its status holds. */
export function conditionsOf(
  state: ReadyState,
  previous: readonly ModuleCondition[],
  now: string,
  generation: number,
): ModuleCondition[] {
  const make = (type: ModuleCondition['type'], status: ModuleCondition['status']): ModuleCondition => {
    const before = previous.find((condition) => condition.type === type);
    return {
      type,
      status,
      reason: state.reason,
      message: state.message,
      lastTransitionTime: before?.status === status ? before.lastTransitionTime : now,
      observedGeneration: generation,
    };
  };
  const conditions = [make('Ready', state.status)];
  // Reconciling, Stalled and Maintenance are abnormal-true: present only while True.
  if (state.beside !== undefined) conditions.push(make(state.beside, 'True'));
  return conditions;
}
