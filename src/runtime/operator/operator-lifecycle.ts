import { sleep, systemClock, type Clock } from '../../core/clock.ts';
import type { KubeClient } from '../../delivery/kube-client.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { LEASE_NAME, LeaderElector, type LeaseSettings } from '../leader-election.ts';
import type { LoadedHook } from '../lifecycle-hooks.ts';

/**
 * The operator's lifecycle rules that are not a task (README "The operator"): when it first reports
 * ready, how it leads or stands by (ADDON_OPERATOR_HA), what ends it, and how long a stop waits.
 */

/** How long a stop lets the running task finish before the running hook's process group is ended. */
export const HOOK_GRACE_MS = 10_000;
/** How long a stop waits for the running task (a hook, a helm upgrade) in all before it gives up. */
export const STOP_GRACE_MS = 20_000;

/** What `/readyz` and `kaddon git status` say while this process waits for the lease. */
export const STANDBY = 'standby: waiting for the leader lease (ADDON_OPERATOR_HA)';
/** The stop reason when another replica took the lease. */
export const LEASE_LOST = 'leader lease lost';

/** The part of the HTTP server readiness is told to. */
export interface Readiness {
  isReady(): boolean;
  setReady(): void;
  setStandby(text: string | undefined): void;
}

/**
 * What runs after each convergence (docs/lifecycle.md: `/readyz` answers 200 once the first one has
 * finished): the first makes the operator ready and logs how long start-up took; later ones log.
 */
export function onConverged(
  readiness: Readiness,
  logger: Logger,
  startedAt: number,
  now = () => performance.now(),
) {
  return (): void => {
    if (readiness.isReady()) {
      logger.info('modules converged');
      return;
    }
    readiness.setReady();
    logger.info('modules converged for the first time', { msSinceStart: Math.round(now() - startedAt) });
  };
}

/** binding_count (docs/monitoring.md): per hook, its kubernetes, schedule and ordered bindings. */
export function countBindings(metrics: Pick<OperatorMetrics, 'bindingCount'>) {
  return (module: string | undefined, hooks: readonly LoadedHook[]): void => {
    for (const { descriptor, config } of hooks) {
      const bindings = config.kubernetes.length + config.schedule.length + Object.keys(config.order).length;
      metrics.bindingCount({ hook: descriptor.name, module }, bindings);
    }
  };
}

export interface LeadParts {
  readonly readiness: Readiness;
  readonly metrics: Pick<OperatorMetrics, 'haLeader'>;
  readonly logger: Logger;
  /** Resolves when the process is told to stop. */
  readonly stopping: Promise<string>;
}

/**
 * ADDON_OPERATOR_HA: waits until this process holds the leader lease, answering `/readyz` as a
 * standby meanwhile and `addon_operator_ha_leader 0`; undefined when it is stopped first.
 */
export async function standByForLease(
  kube: KubeClient,
  lease: Omit<LeaseSettings, 'name'>,
  parts: LeadParts,
): Promise<LeaderElector | undefined> {
  const elector = new LeaderElector(kube, { ...lease, name: LEASE_NAME }, parts.logger);
  parts.metrics.haLeader(false);
  parts.readiness.setStandby(`${STANDBY}: this is ${lease.identity}`);
  parts.logger.info('standing by for the leader lease', { lease: LEASE_NAME, identity: lease.identity });
  const abort = new AbortController();
  void parts.stopping.then(() => {
    abort.abort();
  });
  if (!(await elector.acquire(abort.signal))) return undefined;
  parts.readiness.setStandby(undefined);
  parts.metrics.haLeader(true);
  parts.logger.info('leading', { lease: LEASE_NAME, identity: lease.identity });
  // Said at the renew deadline, not when the stop that follows is done.
  void elector.lost.then(() => {
    parts.metrics.haLeader(false);
  });
  return elector;
}

/** What ends a running operator: a signal, or (a leader) its lease lost to another replica. */
export function stopReason(stopping: Promise<string>, leaseLost: Promise<void> | undefined): Promise<string> {
  return Promise.race([
    stopping,
    leaseLost ? leaseLost.then(() => LEASE_LOST) : new Promise<string>(() => undefined),
  ]);
}

export interface StopSequence {
  /** Why the operator stops: a signal's name or LEASE_LOST. */
  readonly reason: string;
  /** Stops taking tasks; resolves when the running one has finished. */
  readonly stop: () => Promise<void>;
  /** Ends the running hooks' process groups. */
  readonly endHooks: () => void;
  readonly logger: Logger;
  readonly clock?: Clock;
}

/**
 * The stop (README "The operator"): no new tasks; the running one gets HOOK_GRACE_MS, then its hook's
 * process group is ended and the stop waits up to STOP_GRACE_MS in all. A leader that lost its lease
 * ends its hooks at once: another replica acts now. Resolves true when the running task finished.
 * Its grace timers end with it: one left running would keep the process alive after the stop, until
 * the forced exit of docs/lifecycle.md "Stopping".
 */
export async function stopWithGrace(sequence: StopSequence): Promise<boolean> {
  const clock = sequence.clock ?? systemClock;
  const done = new AbortController();
  sequence.logger.info('stopping', { signal: sequence.reason });
  if (sequence.reason === LEASE_LOST) sequence.endHooks();
  const stopped = sequence.stop().then(() => true);
  const graceOver = (ms: number): Promise<false> => sleep(clock, ms, done.signal).then(() => false);
  try {
    if (await Promise.race([stopped, graceOver(HOOK_GRACE_MS)])) return true;
    sequence.logger.error('the running task did not finish in time: ending running hooks and helm', {
      graceMs: HOOK_GRACE_MS,
    });
    sequence.endHooks();
    return await Promise.race([stopped, graceOver(STOP_GRACE_MS - HOOK_GRACE_MS)]);
  } finally {
    done.abort();
  }
}
