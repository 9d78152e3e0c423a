import type { NotificationKind } from '../../observability/notifications/notification-event.ts';
import type { ModuleRecord } from './module-status.ts';

/** What a line of the platform's timeline is about (docs/ui.md "Timeline"). */
export type TimelineKind =
  'delivery' | 'failure' | 'recovery' | 'drift' | 'maintenance' | 'uninstall' | 'health';

/**
 * Each Event reason of docs/module-status.md "Events": the kind of its line on the timeline (a
 * reason not listed is `health`) and, for those people hear of, its notification kind
 * (docs/notifications.md "Events"). One table, so the timeline and the notifications agree.
 */
const EVENT_KINDS: Readonly<
  Record<string, { readonly timeline: TimelineKind; readonly notification?: NotificationKind }>
> = {
  HookFailed: { timeline: 'failure', notification: 'failure' },
  ValuesInvalid: { timeline: 'failure', notification: 'failure' },
  RenderFailed: { timeline: 'failure', notification: 'failure' },
  HelmFailed: { timeline: 'failure', notification: 'failure' },
  HealthCheckFailed: { timeline: 'health', notification: 'failure' },
  Recovered: { timeline: 'recovery', notification: 'recovery' },
  Healthy: { timeline: 'recovery', notification: 'recovery' },
  DriftCorrected: { timeline: 'drift', notification: 'drift-corrected' },
  DriftDetected: { timeline: 'drift' },
  DriftCorrectionBackoff: { timeline: 'drift' },
  ReleaseTakenBack: { timeline: 'drift' },
  MaintenanceStarted: { timeline: 'maintenance', notification: 'maintenance-start' },
  MaintenanceEnded: { timeline: 'maintenance', notification: 'maintenance-end' },
  UninstallHeld: { timeline: 'uninstall', notification: 'held-uninstall' },
};

export function timelineKindOf(reason: string): TimelineKind {
  return EVENT_KINDS[reason]?.timeline ?? 'health';
}

/** The notification kind of an Event reason; undefined for those not announced. */
export function notificationKindOf(reason: string): NotificationKind | undefined {
  return EVENT_KINDS[reason]?.notification;
}

type Delivered = NonNullable<ModuleRecord['delivered']>;

/**
 * The deliveries the module status listeners have not seen yet, by time, for the listeners that
 * tell of each delivery once (the timeline, notifications).
 */
export class NewDeliveries {
  readonly #seen = new Map<string, number>();

  /** The record's delivery when it is one not seen before for the module. */
  take(module: string, record: Readonly<ModuleRecord>): Delivered | undefined {
    const delivered = record.delivered;
    if (delivered === undefined || this.#seen.get(module) === delivered.at) return undefined;
    this.#seen.set(module, delivered.at);
    return delivered;
  }

  forget(module: string): void {
    this.#seen.delete(module);
  }
}

/** `delivered as release revision 3 from Git revision 1a2b…, 4 object(s)`: a delivery, for people. */
export function deliveryNote(delivered: Delivered, options: { readonly gitRevision: boolean }): string {
  const revision =
    delivered.helmRevision === undefined ? '' : ` as release revision ${String(delivered.helmRevision)}`;
  const git =
    !options.gitRevision || delivered.gitRevision === undefined
      ? ''
      : ` from Git revision ${delivered.gitRevision.slice(0, 12)}`;
  return `delivered${revision}${git}, ${String(delivered.objects)} object(s)`;
}
