import { publishedText } from './module-status-publisher.ts';
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
  readonly #mask: ((text: string) => string) | undefined;

  /** `mask` hides secret values, as in the Events kaddon records (docs/hooks.md). */
  constructor(options: { mask?: (text: string) => string; limit?: number; now?: () => number } = {}) {
    this.#limit = options.limit ?? 20;
    this.#now = options.now ?? Date.now;
    this.#mask = options.mask;
  }

  changed(): void {
    // The timeline holds Events only; the condition is read from the tracker.
  }

  removed(module: string): void {
    this.#events.delete(module);
  }

  event(module: string, event: ModuleEvent): void {
    const kept = this.#events.get(module) ?? [];
    kept.push({
      ...event,
      note: publishedText(event.note, this.#mask),
      time: new Date(this.#now()).toISOString(),
    });
    if (kept.length > this.#limit) kept.splice(0, kept.length - this.#limit);
    this.#events.set(module, kept);
  }

  events(module: string): readonly LoggedEvent[] {
    return this.#events.get(module) ?? [];
  }
}
