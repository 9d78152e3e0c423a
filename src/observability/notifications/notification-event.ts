/** What the operator tells the notifier about a module (docs/notifications.md "Events"). */
export const NOTIFICATION_KINDS = [
  'failure',
  'recovery',
  'held-uninstall',
  'drift-corrected',
  'maintenance-start',
  'maintenance-end',
  'delivery',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface NotificationEvent {
  readonly kind: NotificationKind;
  readonly module: string;
  readonly reason: string;
  readonly message: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** The Git revision the event is about, when known: events of one revision are grouped together. */
  readonly revision?: string | undefined;
}
