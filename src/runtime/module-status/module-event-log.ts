import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

export interface LoggedEvent extends ModuleEvent {
  readonly time: string;
}

/**
 * The last Events of each module, newest last, kept in memory for the status page's timeline
 * (docs/ui.md): reading them from the API server would list the cluster per request.
 */
export class ModuleEventLog implements ModuleStatusListener {
  readonly #limit: number;
  readonly #events = new Map<string, LoggedEvent[]>();
  readonly #now: () => number;

  constructor(limit = 20, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  changed(): void {
    // The timeline holds Events only; the condition is read from the tracker.
  }

  removed(module: string): void {
    this.#events.delete(module);
  }

  event(module: string, event: ModuleEvent): void {
    const kept = this.#events.get(module) ?? [];
    kept.push({ ...event, time: new Date(this.#now()).toISOString() });
    if (kept.length > this.#limit) kept.splice(0, kept.length - this.#limit);
    this.#events.set(module, kept);
  }

  events(module: string): readonly LoggedEvent[] {
    return this.#events.get(module) ?? [];
  }
}
