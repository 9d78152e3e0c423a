import type { NotificationKind } from './notification-event.ts';

/** How long a module was failing and how often it failed, for recoveries and the restart summary. */
export interface EpisodeFacts {
  /** When the first failure of the episode was seen (ms since the epoch). */
  readonly since: number;
  readonly failures: number;
  /** Set once the episode is over: how long the module was failing. */
  readonly downMs?: number | undefined;
}

/** One module in a message. */
export interface MessageEntry {
  readonly module: string;
  readonly reason: string;
  readonly message: string;
  readonly at: number;
  readonly episode?: EpisodeFacts | undefined;
}

/** Events of one kind (and one revision) that arrived within the group window. */
export interface EventMessage {
  readonly kind: NotificationKind;
  readonly revision: string | undefined;
  /** When the first of them happened. */
  readonly at: number;
  readonly entries: readonly MessageEntry[];
}

/**
 * What changed while the operator was not running, sent once after its first pass
 * (docs/notifications.md "Restarts").
 */
interface SummaryMessage {
  readonly kind: 'summary';
  readonly at: number;
  /** Failing now, never announced. */
  readonly failing: readonly MessageEntry[];
  /** Announced as failing before the restart, fine now. */
  readonly recovered: readonly MessageEntry[];
}

/** What one request to a channel is about. */
export type NotificationMessage = EventMessage | SummaryMessage;

/** Which kinds of event about which modules a channel takes. */
export type ChannelFilter = (kind: NotificationKind, module: string) => boolean;

/** The part of `message` that `accepts` lets through, or undefined when nothing is left. */
export function filterMessage(
  message: NotificationMessage,
  accepts: ChannelFilter,
): NotificationMessage | undefined {
  if (message.kind === 'summary') {
    const failing = message.failing.filter((entry) => accepts('failure', entry.module));
    const recovered = message.recovered.filter((entry) => accepts('recovery', entry.module));
    return failing.length + recovered.length === 0 ? undefined : { ...message, failing, recovered };
  }
  const entries = message.entries.filter((entry) => accepts(message.kind, entry.module));
  return entries.length === 0 ? undefined : { ...message, entries };
}
