import type {
  NotificationEvent,
  NotificationKind,
} from '../../observability/notifications/notification-event.ts';
import type { ModuleCondition } from '../../observability/notifications/notification-episodes.ts';
import type { ModuleRecord, ReadyState } from './module-status.ts';
import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

/** The Events of docs/module-status.md "Events" that people hear of (docs/notifications.md "Events"). */
const KIND_OF_EVENT: Readonly<Record<string, NotificationKind>> = {
  HookFailed: 'failure',
  ValuesInvalid: 'failure',
  RenderFailed: 'failure',
  HelmFailed: 'failure',
  HealthCheckFailed: 'failure',
  Recovered: 'recovery',
  Healthy: 'recovery',
  DriftCorrected: 'drift-corrected',
  MaintenanceStarted: 'maintenance-start',
  MaintenanceEnded: 'maintenance-end',
  UninstallHeld: 'held-uninstall',
};

/** Ready reasons that are not a failure to announce: the module is as asked, or waits. */
const NOT_FAILING = new Set([
  'Succeeded',
  'Progressing',
  'Disabled',
  'DependencyNotReady',
  'Drifted',
  'Maintenance',
]);

/** Where the events go: the Notifier (src/observability/notifications/notifier.ts). */
export interface NotificationSink {
  record(event: NotificationEvent): void;
}

/**
 * Module status as notifications (docs/notifications.md): the tracker's Events become events of
 * the notification kinds, and each new delivery a `delivery` event (sent only where a channel asks
 * for it). The Notifier makes episodes, groups and limits of them.
 */
export class ModuleNotifications implements ModuleStatusListener {
  readonly #sink: NotificationSink;
  readonly #revision: () => string | undefined;
  readonly #now: () => number;
  readonly #delivered = new Map<string, number>();
  readonly #ready = new Map<string, ReadyState>();

  constructor(sink: NotificationSink, revision: () => string | undefined, now: () => number = Date.now) {
    this.#sink = sink;
    this.#revision = revision;
    this.#now = now;
  }

  changed(module: string, record: Readonly<ModuleRecord>, ready: ReadyState): void {
    this.#ready.set(module, ready);
    const at = record.delivered?.at;
    if (at === undefined || this.#delivered.get(module) === at) return;
    this.#delivered.set(module, at);
    const revision = record.delivered?.helmRevision;
    this.#send(module, 'delivery', {
      reason: 'Delivered',
      message: `delivered${revision === undefined ? '' : ` as release revision ${String(revision)}`}, ${String(record.delivered?.objects ?? 0)} object(s)`,
    });
  }

  removed(module: string): void {
    this.#delivered.delete(module);
    this.#ready.delete(module);
  }

  event(module: string, event: ModuleEvent): void {
    const kind = KIND_OF_EVENT[event.reason];
    if (kind !== undefined) this.#send(module, kind, { reason: event.reason, message: event.note });
  }

  /** Each module's state now, for the Notifier's summary after a start. */
  conditions(): ModuleCondition[] {
    return [...this.#ready].map(([module, ready]) => ({
      module,
      failing: ready.status !== 'True' && !NOT_FAILING.has(ready.reason),
      reason: ready.reason,
      message: ready.message,
    }));
  }

  #send(module: string, kind: NotificationKind, text: { reason: string; message: string }): void {
    this.#sink.record({ kind, module, ...text, at: this.#now(), revision: this.#revision() });
  }
}
