/**
 * Each module's state in the operator as one record, changed only by the named transitions below
 * (docs/lifecycle.md "Module states"). The phase says what last happened to the module; the facts
 * beside it say what its next run and delivery must do. Who asks "why is this module waiting" or
 * "what did it last deliver" reads it here: the debug socket, `kaddon module list`, the status page.
 */

import { errorMessage } from '../../core/errors.ts';

/** What last happened to a module, as docs/lifecycle.md "Module states" draws it. */
type ModulePhase =
  'Disabled' | 'Pending' | 'WaitingForRequirements' | 'Running' | 'Failed' | 'Delivering' | 'Delivered';

/** The transitions that move a module between phases. */
export type ModuleTransition =
  | 'enable'
  | 'disable'
  | 'waitForRequirement'
  | 'startRun'
  | 'finishRun'
  | 'failRun'
  | 'finishDelivery'
  | 'failDelivery'
  | 'failDelete'
  | 'remove';

interface TransitionRule {
  /** The phases the transition may start from; from any other it is a bug in kaddon. */
  readonly from: readonly ModulePhase[];
  /** The phase it leads to; `Delivering or Delivered` picks by whether a delivery is still running. */
  readonly to: ModulePhase | 'Delivering or Delivered' | 'unchanged';
  /** Why it happens, as docs/lifecycle.md says it. */
  readonly when: string;
}

const ACTIVE: readonly ModulePhase[] = [
  'Pending',
  'WaitingForRequirements',
  'Failed',
  'Delivering',
  'Delivered',
];

/**
 * The state table: docs/lifecycle.md "Module states" is checked against it by a test, so the diagram
 * and the code cannot drift apart.
 */
export const MODULE_TRANSITIONS: Readonly<Record<ModuleTransition, TransitionRule>> = {
  enable: { from: ['Disabled'], to: 'Pending', when: 'discovery finds it enabled' },
  disable: {
    from: [...ACTIVE, 'Running'],
    to: 'Disabled',
    when: 'discovery finds it disabled (its ModuleDelete follows)',
  },
  waitForRequirement: {
    from: ACTIVE,
    to: 'WaitingForRequirements',
    when: 'a module it requires is disabled or not Ready when its run comes (a run under way keeps Running)',
  },
  startRun: { from: ACTIVE, to: 'Running', when: 'its ModuleRun begins' },
  finishRun: {
    from: ['Running'],
    to: 'Delivering or Delivered',
    when: 'its hooks succeeded and its slice went to delivery (a module disabled meanwhile stays Disabled)',
  },
  failRun: {
    from: ['Running'],
    to: 'Failed',
    when: 'a hook, a render or an awaited delivery failed (a module disabled meanwhile stays Disabled)',
  },
  finishDelivery: {
    from: ACTIVE,
    to: 'Delivered',
    when: 'its release holds its slice (one that ends while the module runs, or is disabled, leaves the phase)',
  },
  failDelivery: {
    from: ACTIVE,
    to: 'Failed',
    when: 'a delivery left running failed: the module runs again (while it runs, or is disabled, the phase stays)',
  },
  failDelete: { from: ['Disabled'], to: 'unchanged', when: 'its ModuleDelete failed (retried)' },
  remove: {
    from: ['Disabled'],
    to: 'Disabled',
    when: 'its release is uninstalled and its bindings stopped: nothing of it is left',
  },
};

/** One module's record. */
export interface ModuleRecord {
  readonly name: string;
  phase: ModulePhase;
  /** The requirement it waits for, as the Module's status says it, in WaitingForRequirements. */
  waitingFor: string | undefined;
  /** The last failure of its run, delivery or delete, cleared by a successful run. */
  error: string | undefined;
  /** Its onStartup hooks ran and its bindings started since it was last enabled (docs/lifecycle.md step 5). */
  started: boolean;
  /** Its crds/ were applied from the tree in use (again after a Git switch). */
  crdsApplied: boolean;
  /** Its beforeHelm ran once: only such a module is delivered, never with half-made values. */
  prepared: boolean;
  /** Resource ids (`ns/Kind/name`, sorted) of its last delivered slice. */
  deliveredIds: readonly string[] | undefined;
  /** Checksum of its last delivered (or delivering) slice: an unchanged slice needs no helm call. */
  checksum: string | undefined;
  /** The resource monitor found delivered objects missing: the next delivery upgrades whatever the checksum. */
  resourcesMissing: boolean;
  /** Its next delivery takes back fields changed by hand (the end of maintenance). */
  takeOver: boolean;
  /** The converge's `helm list` showed no release: installed without a status call. */
  releaseAbsent: boolean;
  /** A delivery left running is in the pool. */
  delivering: boolean;
  /** A delivery left running failed: its next delivery is awaited by its run. */
  deliveryFailed: boolean;
  /** Failures in a row in its own lane (KADDON_MODULE_FAILURE_POLICY=isolate). */
  isolatedFailures: number;
}

/**
 * Who hears of a module's transitions: the module status tracker, which turns them into the Module
 * object's Ready condition, Events and metrics (docs/module-status.md).
 */
export interface ModuleStateListener {
  running(module: string): void;
  succeeded(module: string): void;
  failed(module: string, error: unknown): void;
  waiting(module: string, requirement: string): void;
  delivered(
    module: string,
    delivery: { checksum: string; helmRevision: number | undefined; objects: number },
  ): void;
  disabled(module: string): void;
}

/** What a finished delivery tells: the slice's ids and checksum, the release revision, the object count. */
export interface FinishedDelivery {
  readonly ids: readonly string[];
  readonly checksum: string;
  readonly helmRevision: number | undefined;
}

/** A transition from a phase the table does not allow: a bug in kaddon, not in the modules tree. */
export class ModuleStateError extends Error {
  override readonly name = 'ModuleStateError';
}

function newRecord(name: string): ModuleRecord {
  return {
    name,
    phase: 'Disabled',
    waitingFor: undefined,
    error: undefined,
    started: false,
    crdsApplied: false,
    prepared: false,
    deliveredIds: undefined,
    checksum: undefined,
    resourcesMissing: false,
    takeOver: false,
    releaseAbsent: false,
    delivering: false,
    deliveryFailed: false,
    isolatedFailures: 0,
  };
}

/** Every module's record, and the enabled modules in module order. */
export class ModuleStates {
  readonly #records = new Map<string, ModuleRecord>();
  #enabled: readonly string[] = [];
  #listener: ModuleStateListener | undefined;

  /** Tells `listener` of every transition from now on. */
  listen(listener: ModuleStateListener): void {
    this.#listener = listener;
  }

  /** Enabled modules after the last discovery, in module order. */
  get enabled(): readonly string[] {
    return this.#enabled;
  }

  isEnabled(module: string): boolean {
    return this.#enabled.includes(module);
  }

  /** The record of a module, undefined for one the operator keeps nothing of. */
  get(module: string): Readonly<ModuleRecord> | undefined {
    return this.#records.get(module);
  }

  /** Every record, in the order the modules first appeared. */
  all(): readonly Readonly<ModuleRecord>[] {
    return [...this.#records.values()];
  }

  /** Modules whose onStartup ran and whose bindings run. */
  started(): string[] {
    return this.all()
      .filter((record) => record.started)
      .map((record) => record.name);
  }

  /**
   * A converge's discovery (docs/lifecycle.md steps 3–6): `enabled` in module order; `releases` as
   * `helm list` showed them. Newly enabled modules enable, no longer enabled ones disable.
   */
  discovered(enabled: readonly string[], releases: readonly string[]): void {
    for (const record of this.#records.values())
      if (!enabled.includes(record.name)) {
        if (record.phase !== 'Disabled') this.#move(record, 'disable');
        record.prepared = false;
        record.releaseAbsent = false;
      }
    for (const module of enabled) {
      const record = this.#record(module);
      if (record.phase === 'Disabled') this.#move(record, 'enable');
      record.releaseAbsent = !releases.includes(module);
    }
    this.#enabled = enabled;
  }

  /** Its run came while a module it requires is not there or not Ready. */
  waitForRequirement(module: string, requirement: string): void {
    const record = this.#record(module);
    this.#listener?.waiting(module, requirement);
    if (record.phase === 'Running') return;
    this.#move(record, 'waitForRequirement');
    record.waitingFor = requirement;
  }

  /** Its ModuleRun begins. An enabled module runs once at a time. */
  startRun(module: string): void {
    this.#move(this.#record(module), 'startRun');
    this.#listener?.running(module);
  }

  crdsWereApplied(module: string): void {
    this.#record(module).crdsApplied = true;
  }

  startupRan(module: string): void {
    this.#record(module).started = true;
  }

  /** beforeHelm ran: from now on the module is delivered. */
  prepared(module: string): void {
    this.#record(module).prepared = true;
  }

  /** Its run succeeded: the slice is delivered, or still delivering in the pool. */
  finishRun(module: string): void {
    const record = this.#record(module);
    if (record.phase !== 'Disabled') this.#move(record, 'finishRun');
    record.error = undefined;
    record.isolatedFailures = 0;
    this.#listener?.succeeded(module);
  }

  /** Its run failed. */
  failRun(module: string, error: unknown): void {
    const record = this.#record(module);
    if (record.phase !== 'Disabled') this.#move(record, 'failRun');
    record.error = errorMessage(error);
    this.#listener?.failed(module, error);
  }

  /** KADDON_MODULE_FAILURE_POLICY=isolate: its run failed once more in its own lane; the failures in a row. */
  countIsolatedFailure(module: string): number {
    const record = this.#record(module);
    record.isolatedFailures += 1;
    return record.isolatedFailures;
  }

  /** Its slice was left delivering in the pool, with this checksum. */
  startDelivery(module: string, checksum: string): void {
    const record = this.#record(module);
    record.delivering = true;
    record.checksum = checksum;
  }

  /** Whether a `helm list` said it had no release; asked once, since a failed install is retried with helm's answer. */
  takeReleaseAbsent(module: string): boolean {
    const record = this.#record(module);
    const absent = record.releaseAbsent;
    record.releaseAbsent = false;
    return absent;
  }

  /** Whether a `helm list` said it had no release, without taking the answer. */
  peekReleaseAbsent(module: string): boolean {
    return this.#records.get(module)?.releaseAbsent === true;
  }

  /** Its release holds the slice with these ids and checksum. */
  finishDelivery(module: string, delivered: FinishedDelivery): void {
    const record = this.#record(module);
    if (record.phase !== 'Running' && record.phase !== 'Disabled') this.#move(record, 'finishDelivery');
    record.deliveredIds = delivered.ids;
    record.checksum = delivered.checksum;
    record.delivering = false;
    record.resourcesMissing = false;
    record.takeOver = false;
    record.deliveryFailed = false;
    const { checksum, helmRevision } = delivered;
    this.#listener?.delivered(module, { checksum, helmRevision, objects: delivered.ids.length });
  }

  /**
   * Its run left nothing of its own to deliver (a Component module that only patches others): no
   * release, and its run is done; `checksum` is the empty slice's.
   */
  deliveredNothing(module: string, checksum: string): void {
    this.#record(module).checksum = checksum;
    this.#listener?.delivered(module, { checksum, helmRevision: undefined, objects: 0 });
  }

  /** A delivery left running failed: the next delivery is awaited and upgrades whatever the checksum. */
  failDelivery(module: string, error: unknown): void {
    const record = this.#record(module);
    if (record.phase !== 'Running' && record.phase !== 'Disabled') this.#move(record, 'failDelivery');
    record.error = errorMessage(error);
    record.delivering = false;
    record.deliveryFailed = true;
    record.checksum = undefined;
    this.#listener?.failed(module, error);
  }

  /** The resource monitor found its objects missing (docs/lifecycle.md step 15). */
  resourcesMissing(module: string): void {
    this.#record(module).resourcesMissing = true;
  }

  /**
   * Maintenance ended (docs/operations.md "Hands off"): the next delivery upgrades whatever the
   * checksum and takes back what was changed by hand meanwhile.
   */
  takeOver(module: string): void {
    const record = this.#record(module);
    record.resourcesMissing = true;
    record.takeOver = true;
  }

  /** Its ModuleDelete failed; it is retried. */
  failDelete(module: string, error: string): void {
    const record = this.#record(module);
    this.#move(record, 'failDelete');
    record.error = error;
  }

  /**
   * Its release is uninstalled: what it delivered is forgotten, while its bindings may still run
   * (their afterDeleteHelm hooks see them).
   */
  released(module: string): void {
    const record = this.#records.get(module);
    if (record === undefined) return;
    record.crdsApplied = false;
    record.error = undefined;
    record.prepared = false;
    record.deliveredIds = undefined;
    record.checksum = undefined;
    record.resourcesMissing = false;
  }

  /**
   * Removed from the operator: nothing of it is left. A deleted module of the tree is told to the
   * listener as disabled; a purged release's module is not in the tree, and nothing is told.
   */
  remove(module: string, how: 'deleted' | 'purged'): void {
    const record = this.#records.get(module);
    if (record !== undefined) {
      if (record.phase !== 'Disabled') this.#move(record, 'disable');
      this.#move(record, 'remove');
      this.#records.delete(module);
    }
    if (how === 'deleted') this.#listener?.disabled(module);
  }

  /** A new tree is in use: each module's crds/ are applied again on its next run. */
  treeSwitched(): void {
    for (const record of this.#records.values()) record.crdsApplied = false;
  }

  #record(module: string): ModuleRecord {
    let record = this.#records.get(module);
    if (record === undefined) {
      record = newRecord(module);
      this.#records.set(module, record);
    }
    return record;
  }

  #move(record: ModuleRecord, transition: ModuleTransition): void {
    const rule = MODULE_TRANSITIONS[transition];
    if (!rule.from.includes(record.phase))
      throw new ModuleStateError(
        `module ${record.name}: ${transition} from ${record.phase} is not a transition`,
      );
    if (rule.to === 'unchanged') return;
    record.phase =
      rule.to === 'Delivering or Delivered' ? (record.delivering ? 'Delivering' : 'Delivered') : rule.to;
    if (record.phase !== 'WaitingForRequirements') record.waitingFor = undefined;
  }
}
