import type { Clock } from '../../core/clock.ts';
import type { ModuleRequest } from '../../delivery/module-requests.ts';

/** A module in maintenance (docs/operations.md "Hands off"). */
export interface Maintenance {
  /** When it began: kept on the Module object across restarts and leader changes. */
  readonly since: number;
  /** Stop: the module's hooks are held too; Run (the default) keeps them running. */
  readonly hooks: 'Run' | 'Stop';
}

/** What the operator does when a request changes (Operator). */
export interface ModuleControlsListener {
  maintenanceStarted(module: string, maintenance: Maintenance): void;
  /** `hooks` changed while maintenance goes on. */
  maintenanceChanged(module: string, maintenance: Maintenance): void;
  maintenanceEnded(module: string, maintenance: Maintenance): void;
  reconcileRequested(module: string, token: string): void;
}

/**
 * What people on call asked of each module, from its Module object (docs/operations.md): which
 * modules are hands off, and the reconcile requests not answered yet. The delivery, drift and
 * uninstall steps ask it; the Operator is told of each change.
 */
export class ModuleControls {
  readonly #clock: Clock;
  readonly #maintenance = new Map<string, Maintenance>();
  /** Reconcile requests seen and not yet answered by a run that started after them. */
  readonly #requested = new Map<string, string>();
  /** The last request each module's runs answered (or the object said was answered). */
  readonly #handled = new Map<string, string>();
  /** Modules whose uninstall maintenance held: candidates again at each converge until done. */
  readonly #heldUninstalls = new Set<string>();
  #listener: ModuleControlsListener | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  listen(listener: ModuleControlsListener): void {
    this.#listener = listener;
  }

  /** A module's request as its Module object now says it. */
  apply(module: string, request: ModuleRequest): void {
    this.#applyMaintenance(module, request);
    const token = request.reconcileRequestedAt;
    if (!this.#handled.has(module) && request.lastHandledReconcileAt !== undefined)
      this.#handled.set(module, request.lastHandledReconcileAt);
    if (token === undefined || token === this.#handled.get(module) || token === this.#requested.get(module))
      return;
    this.#requested.set(module, token);
    this.#listener?.reconcileRequested(module, token);
  }

  isInMaintenance(module: string): boolean {
    return this.#maintenance.has(module);
  }

  maintenanceOf(module: string): Maintenance | undefined {
    return this.#maintenance.get(module);
  }

  /** The modules in maintenance now. */
  inMaintenance(): string[] {
    return [...this.#maintenance.keys()];
  }

  /** A ModuleDelete found the module in maintenance: a later converge uninstalls it. */
  holdUninstall(module: string): void {
    this.#heldUninstalls.add(module);
  }

  /** Whether an uninstall of the module was held, and not done or made moot since. */
  isUninstallHeld(module: string): boolean {
    return this.#heldUninstalls.has(module);
  }

  /** The module was uninstalled, or is enabled again: nothing is held any more. */
  releaseUninstall(module: string): void {
    this.#heldUninstalls.delete(module);
  }

  hooksHeld(module: string): boolean {
    return this.#maintenance.get(module)?.hooks === 'Stop';
  }

  /**
   * The reconcile request a run starting now answers, taken: a request that comes while it runs
   * is answered by the next run.
   */
  takeReconcileRequest(module: string): string | undefined {
    const token = this.#requested.get(module);
    if (token === undefined) return undefined;
    this.#requested.delete(module);
    this.#handled.set(module, token);
    return token;
  }

  #applyMaintenance(module: string, request: ModuleRequest): void {
    const before = this.#maintenance.get(module);
    if (request.maintenance === undefined) {
      if (before === undefined) return;
      this.#maintenance.delete(module);
      this.#listener?.maintenanceEnded(module, before);
      return;
    }
    if (before !== undefined) {
      if (before.hooks === request.maintenance.hooks) return;
      const changed = { ...before, hooks: request.maintenance.hooks };
      this.#maintenance.set(module, changed);
      this.#listener?.maintenanceChanged(module, changed);
      return;
    }
    const since = Date.parse(request.maintenanceSince ?? '');
    const maintenance = {
      since: Number.isNaN(since) ? this.#clock.now() : since,
      hooks: request.maintenance.hooks,
    };
    this.#maintenance.set(module, maintenance);
    this.#listener?.maintenanceStarted(module, maintenance);
  }
}

/** The UninstallHeld Event's note for an uninstall maintenance holds. */
export function maintenanceHoldNote(why: string): string {
  return `not uninstalled (${why}): the module is in maintenance; the uninstall runs when it ends`;
}
