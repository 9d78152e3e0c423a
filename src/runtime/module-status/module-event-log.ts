import { publishedText } from './module-status-publisher.ts';
import { deliveryNote, NewDeliveries, timelineKindOf, type TimelineKind } from './module-event-kinds.ts';
import type { ModuleRecord } from './module-status.ts';
import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

export interface LoggedEvent extends ModuleEvent {
  readonly time: string;
}

/** One line of the platform's timeline: a delivery, or an Event of a module. */
export interface TimelineEntry extends LoggedEvent {
  readonly module: string;
  readonly kind: TimelineKind;
}

/** How many lines the platform's timeline keeps: some hours of a busy platform. */
const TIMELINE_LIMIT = 2000;

/**
 * The last Events of each module, newest last, kept in memory for the status page's timeline
 * (docs/ui.md): reading them from the API server would list the cluster per request.
 */
export class ModuleEventLog implements ModuleStatusListener {
  readonly #limit: number;
  readonly #events = new Map<string, LoggedEvent[]>();
  readonly #now: () => number;
  readonly #mask: ((text: string) => string) | undefined;
  /** The whole platform's, newest last, bounded by TIMELINE_LIMIT. */
  readonly #timeline: TimelineEntry[] = [];
  readonly #deliveries = new NewDeliveries();

  /** `mask` hides secret values, as in the Events kaddon records (docs/hooks.md). */
  constructor(options: { mask?: (text: string) => string; limit?: number; now?: () => number } = {}) {
    this.#limit = options.limit ?? 20;
    this.#now = options.now ?? Date.now;
    this.#mask = options.mask;
  }

  /** Each new delivery goes on the platform's timeline; the condition is read from the tracker. */
  changed(module: string, record: Readonly<ModuleRecord>): void {
    const delivered = this.#deliveries.take(module, record);
    if (delivered === undefined) return;
    this.#remember({
      module,
      kind: 'delivery',
      type: 'Normal',
      reason: 'Delivered',
      action: 'Deliver',
      note: deliveryNote(delivered, { gitRevision: true }),
      time: new Date(delivered.at).toISOString(),
    });
  }

  removed(module: string): void {
    this.#events.delete(module);
    this.#deliveries.forget(module);
  }

  /** The platform's timeline, newest first; `module` and `kind` narrow it (docs/ui.md "Timeline"). */
  timeline(filter: { readonly module?: string; readonly kind?: string } = {}): TimelineEntry[] {
    return this.#timeline
      .filter((entry) => filter.module === undefined || entry.module === filter.module)
      .filter((entry) => filter.kind === undefined || entry.kind === filter.kind)
      .reverse();
  }

  #remember(entry: TimelineEntry): void {
    this.#timeline.push(entry);
    if (this.#timeline.length > TIMELINE_LIMIT)
      this.#timeline.splice(0, this.#timeline.length - TIMELINE_LIMIT);
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
    const logged = kept.at(-1);
    if (logged !== undefined) this.#remember({ ...logged, module, kind: timelineKindOf(event.reason) });
  }

  events(module: string): readonly LoggedEvent[] {
    return this.#events.get(module) ?? [];
  }
}
