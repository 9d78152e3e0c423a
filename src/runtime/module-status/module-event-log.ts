import { publishedText } from './module-status-publisher.ts';
import type { ModuleRecord } from './module-status.ts';
import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

export interface LoggedEvent extends ModuleEvent {
  readonly time: string;
}

/** What a line of the platform's timeline is about (docs/ui.md "Timeline"). */
type TimelineKind =
  'delivery' | 'failure' | 'recovery' | 'drift' | 'maintenance' | 'uninstall' | 'health';

/** One line of the platform's timeline: a delivery, or an Event of a module. */
export interface TimelineEntry extends LoggedEvent {
  readonly module: string;
  readonly kind: TimelineKind;
}

/** The timeline's kind of each Event reason (docs/module-status.md "Events"); others are `health`. */
const KIND_OF_REASON: Readonly<Record<string, TimelineKind>> = {
  HookFailed: 'failure',
  ValuesInvalid: 'failure',
  RenderFailed: 'failure',
  HelmFailed: 'failure',
  Recovered: 'recovery',
  Healthy: 'recovery',
  DriftCorrected: 'drift',
  DriftDetected: 'drift',
  DriftCorrectionBackoff: 'drift',
  ReleaseTakenBack: 'drift',
  MaintenanceStarted: 'maintenance',
  MaintenanceEnded: 'maintenance',
  UninstallHeld: 'uninstall',
};

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
  readonly #delivered = new Map<string, number>();

  /** `mask` hides secret values, as in the Events kaddon records (docs/hooks.md). */
  constructor(options: { mask?: (text: string) => string; limit?: number; now?: () => number } = {}) {
    this.#limit = options.limit ?? 20;
    this.#now = options.now ?? Date.now;
    this.#mask = options.mask;
  }

  /** Each new delivery goes on the platform's timeline; the condition is read from the tracker. */
  changed(module: string, record: Readonly<ModuleRecord>): void {
    const delivered = record.delivered;
    if (delivered === undefined || this.#delivered.get(module) === delivered.at) return;
    this.#delivered.set(module, delivered.at);
    const revision =
      delivered.helmRevision === undefined ? '' : ` as release revision ${String(delivered.helmRevision)}`;
    const git =
      delivered.gitRevision === undefined ? '' : ` from Git revision ${delivered.gitRevision.slice(0, 12)}`;
    this.#remember({
      module,
      kind: 'delivery',
      type: 'Normal',
      reason: 'Delivered',
      action: 'Deliver',
      note: `delivered${revision}${git}, ${String(delivered.objects)} object(s)`,
      time: new Date(delivered.at).toISOString(),
    });
  }

  removed(module: string): void {
    this.#events.delete(module);
    this.#delivered.delete(module);
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
    if (logged !== undefined)
      this.#remember({ ...logged, module, kind: KIND_OF_REASON[event.reason] ?? 'health' });
  }

  events(module: string): readonly LoggedEvent[] {
    return this.#events.get(module) ?? [];
  }
}
