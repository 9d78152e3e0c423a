import type {
  NotificationEvent,
  NotificationKind,
} from '../../observability/notifications/notification-event.ts';
import type { ModuleCondition } from '../../observability/notifications/notification-episodes.ts';
import { deliveryNote, NewDeliveries, notificationKindOf } from './module-event-kinds.ts';
import type { ModuleRecord, ReadyState } from './module-status.ts';
import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

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
  readonly #deliveries = new NewDeliveries();
  readonly #ready = new Map<string, ReadyState>();

  constructor(sink: NotificationSink, revision: () => string | undefined, now: () => number = Date.now) {
    this.#sink = sink;
    this.#revision = revision;
    this.#now = now;
  }

  changed(module: string, record: Readonly<ModuleRecord>, ready: ReadyState): void {
    this.#ready.set(module, ready);
    const delivered = this.#deliveries.take(module, record);
    if (delivered === undefined) return;
    this.#send(module, 'delivery', {
      reason: 'Delivered',
      message: deliveryNote(delivered, { gitRevision: false }),
    });
  }

  removed(module: string): void {
    this.#deliveries.forget(module);
    this.#ready.delete(module);
  }

  event(module: string, event: ModuleEvent): void {
    const kind = notificationKindOf(event.reason);
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
