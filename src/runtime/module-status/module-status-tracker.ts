import { durationText } from '../../core/duration-text.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { ObjectHealth } from '../../core/object-health.ts';
import { classifyFailure } from './failure-reason.ts';
import { newModuleRecord, readyStateOf, type ModuleRecord, type ReadyState } from './module-status.ts';

/** A change to report in `kubectl get events` (docs/module-status.md "Events"). */
export interface ModuleEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

/** Where a module's status goes: the Module object, metrics, Events. */
export interface ModuleStatusListener {
  changed(module: string, record: Readonly<ModuleRecord>, ready: ReadyState): void;
  removed(module: string): void;
  event?(module: string, event: ModuleEvent): void;
}

export interface ModuleStatusTrackerOptions {
  readonly listeners: readonly ModuleStatusListener[];
  /** KADDON_HEALTH_TIMEOUT, or the module's own `healthTimeout` (docs/module-status.md "Health"). */
  readonly healthTimeoutMs: (module: string) => number;
  /** Whether a health follower reports: without one, a delivered module counts as healthy. */
  readonly followsHealth?: boolean;
  /** Modules with a Module object from an earlier run: removed by the first setModules unless in the tree. */
  readonly existing?: readonly string[];
  readonly clock?: Clock;
}

/**
 * What the operator knows of each module's state, turned into a Ready condition and told to the
 * listeners whenever it changes (docs/module-status.md). The operator calls it at each step of a
 * module's life; the health follower calls `health`.
 */
export class ModuleStatusTracker {
  readonly #options: ModuleStatusTrackerOptions;
  readonly #clock: Clock;
  readonly #records = new Map<string, ModuleRecord>();
  readonly #published = new Map<string, string>();
  readonly #wasReady = new Set<string>();
  readonly #timers = new Map<string, () => void>();
  /** Modules whose last health Event was HealthCheckFailed. */
  readonly #healthFailed = new Set<string>();
  readonly #readyListeners: ((module: string) => void)[] = [];
  /** Each Module object's metadata.generation as last seen, for records made later. */
  readonly #generations = new Map<string, number>();
  #gitRevision: string | undefined;
  #existing: readonly string[];

  constructor(options: ModuleStatusTrackerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#existing = options.existing ?? [];
  }

  /** The modules of the tree and which are enabled; modules gone from the tree lose their status. */
  setModules(all: readonly string[], enabled: readonly string[]): void {
    for (const module of this.#existing)
      if (!all.includes(module)) for (const listener of this.#options.listeners) listener.removed(module);
    this.#existing = [];
    for (const module of [...this.#records.keys()])
      if (!all.includes(module)) {
        this.#records.delete(module);
        this.#published.delete(module);
        this.#cancelTimer(module);
        for (const listener of this.#options.listeners) listener.removed(module);
      }
    for (const module of all) this.#update(module, (record) => (record.enabled = enabled.includes(module)));
  }

  /** The Git revision in use, recorded with each later delivery. */
  setGitRevision(revision: string | undefined): void {
    this.#gitRevision = revision;
  }

  running(module: string): void {
    this.#update(module, (record) => {
      record.running = true;
      record.waitingFor = undefined;
    });
  }

  /** The module does not run until `dependency` (`module 'x'`, `module 'x', which is disabled`) is Ready. */
  waiting(module: string, dependency: string): void {
    this.#update(module, (record) => {
      record.running = false;
      record.waitingFor = dependency;
    });
  }

  /** Called with each module whose Ready condition turns True. */
  onReady(listener: (module: string) => void): void {
    this.#readyListeners.push(listener);
  }

  /** A ModuleRun (or its delivery) failed: retried by the queue, reported here each time. */
  failed(module: string, error: unknown): void {
    const failure = classifyFailure(error);
    this.#update(module, (record) => {
      record.running = false;
      record.failure = failure;
    });
    this.#event(module, { type: 'Warning', reason: failure.reason, action: 'Run', note: failure.message });
  }

  /** A run finished; its release may still be on its way (`delivered` follows). */
  succeeded(module: string): void {
    const before = this.#records.get(module)?.failure;
    this.#update(module, (record) => {
      record.running = false;
      record.failure = undefined;
    });
    if (before !== undefined)
      this.#event(module, {
        type: 'Normal',
        reason: 'Recovered',
        action: 'Run',
        note: `recovered from ${before.reason}`,
      });
  }

  delivered(
    module: string,
    delivery: { checksum: string; helmRevision: number | undefined; objects: number },
  ): void {
    this.#cancelTimer(module);
    this.#update(module, (record) => {
      record.delivered = { ...delivery, at: this.#clock.now(), gitRevision: this.#gitRevision };
      record.healthTimedOut = false;
      record.drift = undefined;
      if (this.#options.followsHealth === false) record.health = { status: 'Current', message: '' };
    });
    this.#armHealthTimer(module);
  }

  /** A drift check found objects changed outside kaddon, and put them back unless only warning. */
  drifted(module: string, drift: { objects: readonly string[]; corrected: boolean }): void {
    this.#update(module, (record) => {
      record.drift = { at: this.#clock.now(), ...drift };
    });
    const count = drift.objects.length;
    const shown = drift.objects.slice(0, 5).join('; ') + (count > 5 ? `; and ${count - 5} more` : '');
    this.#event(module, {
      type: 'Warning',
      reason: drift.corrected ? 'DriftCorrected' : 'DriftDetected',
      action: drift.corrected ? 'Correct' : 'Detect',
      note: `${count} object(s) changed outside kaddon${drift.corrected ? ', put back as delivered' : ''}: ${shown}`,
    });
  }

  /** A drift check found every object as delivered again (put back by hand, or corrected). */
  inSync(module: string): void {
    if (this.#records.get(module)?.drift === undefined) return;
    this.#update(module, (record) => {
      record.drift = undefined;
    });
  }

  /**
   * Another writer keeps changing back an object the drift check corrects: its corrections are
   * spaced out (docs/drift.md "Another writer"). Said once per fight.
   */
  driftBackoff(module: string, object: string, delayMs: number): void {
    this.#event(module, {
      type: 'Warning',
      reason: 'DriftCorrectionBackoff',
      action: 'Correct',
      note: `${object}: changed back again after its correction, by another writer (a controller?); corrections of this object are spaced out (next in ${String(Math.round(delayMs / 1000))}s, then less often, up to every 5m) until it stays put. Give the field to that writer with drift.ignore in module.yaml, or stop it.`,
    });
  }

  /**
   * The module's release had a revision kaddon did not write (a hand `helm upgrade` or `helm
   * rollback`): the tree's state was delivered over it (docs/delivery.md "Revisions kaddon did not
   * write").
   */
  releaseTakenBack(module: string, taken: { from: number; to: number; why: string }): void {
    this.#event(module, {
      type: 'Warning',
      reason: 'ReleaseTakenBack',
      action: 'Deliver',
      note: `release revision ${String(taken.from)} was not written by kaddon (${taken.why}); delivered the tree's state as revision ${String(taken.to)}`,
    });
  }

  /**
   * Hands off begins, changes or ends (docs/operations.md "Hands off"); an Event marks the start
   * and the end.
   */
  maintenance(module: string, maintenance: { since: number; hooks: 'Run' | 'Stop' } | undefined): void {
    const before = this.#records.get(module)?.maintenance;
    this.#update(module, (record) => {
      record.maintenance =
        maintenance === undefined ? undefined : { ...maintenance, pending: before?.pending ?? false };
    });
    if (before === undefined && maintenance !== undefined)
      this.#event(module, {
        type: 'Normal',
        reason: 'MaintenanceStarted',
        action: 'Maintenance',
        note: `in maintenance${maintenance.hooks === 'Stop' ? ' with its hooks held' : ''}: kaddon does not deliver, correct drift or uninstall it until spec.maintenance is Off`,
      });
    else if (before !== undefined && maintenance === undefined)
      this.#event(module, {
        type: 'Normal',
        reason: 'MaintenanceEnded',
        action: 'Maintenance',
        note: `maintenance ended after ${durationText(this.#clock.now() - before.since)}: the module is delivered as the tree says`,
      });
  }

  /** A run in maintenance left its delivery for when maintenance ends. */
  deliveryHeld(module: string): void {
    this.#update(module, (record) => {
      if (record.maintenance !== undefined) record.maintenance = { ...record.maintenance, pending: true };
    });
  }

  /**
   * The module's release would be uninstalled now but is held: the module is in maintenance
   * (docs/operations.md), or the prune guard holds it (docs/lifecycle.md "Missing inputs and mass
   * deletion"). `note` says why and until when; said once per hold.
   */
  uninstallHeld(module: string, note: string): void {
    this.#event(module, { type: 'Warning', reason: 'UninstallHeld', action: 'Uninstall', note });
  }

  /** A run that answered a reconcile request (docs/operations.md "Reconcile now") ended. */
  reconcileHandled(module: string, token: string): void {
    this.#update(module, (record) => {
      record.lastHandledReconcileAt = token;
    });
  }

  /** The Module object's generation, echoed as status.observedGeneration. */
  generation(module: string, generation: number): void {
    this.#generations.set(module, generation);
    const record = this.#records.get(module);
    if (record === undefined || record.generation === generation) return;
    this.#update(module, (changed) => {
      changed.generation = generation;
    });
  }

  disabled(module: string): void {
    this.#cancelTimer(module);
    this.#update(module, (record) => {
      record.enabled = false;
      record.running = false;
      record.failure = undefined;
      record.delivered = undefined;
      record.health = { status: 'Unknown', message: '' };
    });
  }

  /** The worst health of the module's delivered objects, from the health follower. */
  health(module: string, health: ObjectHealth): void {
    const record = this.#records.get(module);
    if (record === undefined) return;
    const before = readyStateOf(record);
    this.#update(module, (current) => {
      current.health = health;
      if (health.status === 'Current') current.healthTimedOut = false;
    });
    if (health.status === 'Current') this.#cancelTimer(module);
    else if (!this.#timers.has(module) && !record.healthTimedOut) this.#armHealthTimer(module);
    this.#healthEvent(module, before);
  }

  /** The record of a module, for the debug socket and tests. */
  record(module: string): Readonly<ModuleRecord> | undefined {
    return this.#records.get(module);
  }

  readyState(module: string): ReadyState | undefined {
    const record = this.#records.get(module);
    return record === undefined ? undefined : readyStateOf(record);
  }

  /**
   * Whether modules that require this one may run: Ready, or in maintenance (the person on call
   * holds it as it is; docs/operations.md "Hands off").
   */
  isReady(module: string): boolean {
    const record = this.#records.get(module);
    return record?.maintenance !== undefined || this.readyState(module)?.status === 'True';
  }

  stop(): void {
    for (const module of [...this.#timers.keys()]) this.#cancelTimer(module);
  }

  #armHealthTimer(module: string): void {
    const record = this.#records.get(module);
    if (record === undefined || record.health.status === 'Current') return;
    const delivery = record.delivered;
    const cancel = this.#clock.setTimer(() => {
      this.#timers.delete(module);
      const current = this.#records.get(module);
      if (current === undefined || current.delivered !== delivery || current.health.status === 'Current')
        return;
      const before = readyStateOf(current);
      this.#update(module, (changed) => (changed.healthTimedOut = true));
      this.#healthEvent(module, before);
    }, this.#options.healthTimeoutMs(module));
    this.#timers.set(module, cancel);
  }

  #cancelTimer(module: string): void {
    this.#timers.get(module)?.();
    this.#timers.delete(module);
  }

  /** HealthCheckFailed when it starts; Healthy when Ready comes back after one, however it came back. */
  #healthEvent(module: string, before: ReadyState): void {
    const after = this.readyState(module);
    if (after === undefined || after.reason === before.reason) return;
    if (after.reason === 'HealthCheckFailed') {
      this.#healthFailed.add(module);
      this.#event(module, {
        type: 'Warning',
        reason: 'HealthCheckFailed',
        action: 'HealthCheck',
        note: after.message,
      });
    } else if (after.status === 'True' && this.#healthFailed.delete(module))
      this.#event(module, { type: 'Normal', reason: 'Healthy', action: 'HealthCheck', note: after.message });
  }

  #update(module: string, change: (record: ModuleRecord) => void): void {
    let record = this.#records.get(module);
    if (record === undefined) {
      record = newModuleRecord();
      record.generation = this.#generations.get(module) ?? 1;
      this.#records.set(module, record);
    }
    change(record);
    const ready = readyStateOf(record);
    const key = JSON.stringify([
      ready,
      record.enabled,
      record.delivered,
      record.lastHandledReconcileAt,
      record.generation,
    ]);
    if (this.#published.get(module) === key) return;
    const wasReady = this.#wasReady.has(module);
    this.#published.set(module, key);
    for (const listener of this.#options.listeners) listener.changed(module, record, ready);
    if (ready.status === 'True') this.#wasReady.add(module);
    else this.#wasReady.delete(module);
    if (ready.status === 'True' && !wasReady) for (const listener of this.#readyListeners) listener(module);
  }

  #event(module: string, event: ModuleEvent): void {
    for (const listener of this.#options.listeners) listener.event?.(module, event);
  }
}
