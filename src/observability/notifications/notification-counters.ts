/** Why a notification request failed: per attempt (`http`, `network`) or per message lost (`budget`, `rejected`). */
export type NotificationFailure = 'http' | 'network' | 'budget' | 'rejected';

/** The notification metrics, counted by channel name; the operator backs them with prom-client (docs/notifications.md "Delivery"). */
export interface NotificationCounters {
  sent(channel: string): void;
  failed(channel: string, reason: NotificationFailure): void;
}
