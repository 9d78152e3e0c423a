import { systemClock, type Clock } from '../../core/clock.ts';
import { errorMessage } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { objectKeyOf } from '../../core/object-key.ts';
import { compareApplied } from '../../core/object-drift.ts';
import { idOf } from '../../core/res-id.ts';
import type { ResourceEvent } from '../../delivery/reconcile-list.ts';
import type { Logger } from '../../observability/logger.ts';

/** How long a changed object is left to settle before it is checked: one check for a burst of edits. */
const DRIFT_DEBOUNCE_MS = 1500;

export interface DriftTriggerOptions {
  /** The drift check of one object of the module's release (ResourceMonitor.checkObject). */
  readonly check: (
    module: string,
    object: JsonObject,
  ) => Promise<{ readonly retryInMs?: number } | undefined>;
  readonly logger: Logger;
  readonly clock?: Pick<Clock, 'setTimer'>;
  readonly debounceMs?: number;
}

interface Pending {
  object: JsonObject;
  readonly cancel: () => void;
}

/**
 * Drift found from the delivered-object watches (docs/drift.md "Found from watches"): an event that
 * changes a field the release sets (status updates and other managers' fields do not) schedules a
 * check of that object after a short debounce, instead of waiting for the periodic check. A check
 * that left an object for later (another writer keeps changing it back) is scheduled again then.
 */
export class DriftTrigger {
  readonly #options: DriftTriggerOptions;
  /** The object as last seen, per module and object. */
  readonly #seen = new Map<string, JsonObject>();
  readonly #pending = new Map<string, Pending>();
  #stopped = false;

  constructor(options: DriftTriggerOptions) {
    this.#options = options;
  }

  /** A watch event of an object the module delivered. */
  changed(module: string, event: ResourceEvent): void {
    if (this.#stopped) return;
    const { object } = event;
    const id = idOf(object);
    const key = `${module}\0${id.group}/${id.kind}\0${objectKeyOf(object)}`;
    const before = this.#seen.get(key);
    if (event.type === 'Deleted') this.#seen.delete(key);
    else this.#seen.set(key, object);
    // Our own corrections and helm's writes change these fields too: the check knows their versions.
    if (event.type === 'Modified' && before !== undefined && !compareApplied(before, object).changed) return;
    this.#schedule(key, module, object, this.#options.debounceMs ?? DRIFT_DEBOUNCE_MS);
  }

  /** The module's objects are no longer followed (its release is gone): nothing of it is kept or checked. */
  forget(module: string): void {
    const prefix = `${module}\0`;
    for (const key of [...this.#seen.keys()]) if (key.startsWith(prefix)) this.#seen.delete(key);
    for (const [key, pending] of [...this.#pending]) {
      if (!key.startsWith(prefix)) continue;
      pending.cancel();
      this.#pending.delete(key);
    }
  }

  /** How many objects are remembered as last seen. */
  get seenCount(): number {
    return this.#seen.size;
  }

  stop(): void {
    this.#stopped = true;
    for (const pending of this.#pending.values()) pending.cancel();
    this.#pending.clear();
    this.#seen.clear();
  }

  #schedule(key: string, module: string, object: JsonObject, delayMs: number): void {
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      pending.object = object;
      return;
    }
    const clock = this.#options.clock ?? systemClock;
    const entry: Pending = {
      object,
      cancel: clock.setTimer(() => {
        this.#pending.delete(key);
        void this.#run(key, module, entry.object);
      }, delayMs),
    };
    this.#pending.set(key, entry);
  }

  async #run(key: string, module: string, object: JsonObject): Promise<void> {
    try {
      const report = await this.#options.check(module, object);
      if (report?.retryInMs !== undefined && !this.#stopped)
        this.#schedule(key, module, object, report.retryInMs);
    } catch (error: unknown) {
      this.#options.logger.error('drift check of a changed object failed; the periodic check will retry', {
        module,
        object: `${idOf(object).kind} ${objectKeyOf(object)}`,
        error: errorMessage(error),
      });
    }
  }
}
