import type { NotificationMessage } from './notification-message.ts';

/** The body and headers of one request to a channel, built once and sent as is on every retry. */
export interface FormattedRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

interface FormatContext {
  /** The key the generic webhook signs with; undefined for Slack and Teams. */
  readonly hmacKey: string | undefined;
  /** Unique per message and channel, the same on retries, so that a receiver can drop repeats. */
  readonly deliveryId: string;
}

export type FormatMessage = (message: NotificationMessage, context: FormatContext) => FormattedRequest;

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;
