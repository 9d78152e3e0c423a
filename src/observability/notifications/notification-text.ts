import { durationText } from '../../core/duration-text.ts';
import type { MessageEntry, NotificationMessage } from './notification-message.ts';
import type { NotificationKind } from './notification-event.ts';

/**
 * How many modules a message names for people (Slack, Teams); the rest are counted ("and 10 more").
 * A revision that breaks every module must not become a wall of text (docs/notifications.md
 * "Grouping").
 */
const MAX_LISTED_MODULES = 20;

/** One module's line is cut here: a hook's error output can be long. */
const MAX_ENTRY_CHARS = 500;

const TITLES = {
  failure: ['Module failing', 'modules failing'],
  recovery: ['Module recovered', 'modules recovered'],
  'held-uninstall': ['Uninstall held', 'uninstalls held'],
  'drift-corrected': ['Drift corrected', 'modules with drift corrected'],
  'maintenance-start': ['Maintenance started', 'modules in maintenance'],
  'maintenance-end': ['Maintenance ended', 'modules out of maintenance'],
  delivery: ['Module delivered', 'modules delivered'],
} as const satisfies Record<NotificationKind, readonly [string, string]>;

/** The headline of a message: what happened, to how many modules, at which revision. */
export function describeTitle(message: NotificationMessage): string {
  if (message.kind === 'summary') {
    const parts = [
      message.failing.length > 0 ? `${message.failing.length} failing` : '',
      message.recovered.length > 0 ? `${message.recovered.length} recovered while it was down` : '',
    ].filter((part) => part !== '');
    return `kaddon restarted: ${parts.join(', ')}`;
  }
  const [one, many] = TITLES[message.kind];
  const count = message.entries.length;
  const title = count === 1 ? `${one}: ${message.entries[0]?.module ?? ''}` : `${count} ${many}`;
  return message.revision === undefined ? title : `${title} at revision ${message.revision}`;
}

/** One module's line, without its name. */
function describeEntry(kind: NotificationKind, entry: MessageEntry): string {
  const { episode } = entry;
  if (kind === 'recovery' && episode?.downMs !== undefined)
    return `recovered after ${durationText(episode.downMs)}, ${describeCount(episode.failures)}`;
  const text = entry.message === '' ? entry.reason : `${entry.reason}: ${entry.message}`;
  return text.length > MAX_ENTRY_CHARS ? `${text.slice(0, MAX_ENTRY_CHARS - 1)}…` : text;
}

function describeCount(failures: number): string {
  return failures === 1 ? '1 failed attempt' : `${failures} failed attempts`;
}

/** A message as people read it: a title, a line per module (at most MAX_LISTED_MODULES), a count of the rest. */
export interface MessageText {
  readonly title: string;
  readonly lines: readonly { readonly module: string; readonly text: string }[];
  readonly more: number;
}

export function describeMessage(message: NotificationMessage): MessageText {
  const lines =
    message.kind === 'summary'
      ? [
          ...message.failing.map((entry) => ({
            module: entry.module,
            text: `failing: ${describeEntry('failure', entry)}`,
          })),
          ...message.recovered.map((entry) => ({
            module: entry.module,
            text: describeEntry('recovery', entry),
          })),
        ]
      : message.entries.map((entry) => ({ module: entry.module, text: describeEntry(message.kind, entry) }));
  return {
    title: describeTitle(message),
    lines: lines.slice(0, MAX_LISTED_MODULES),
    more: Math.max(0, lines.length - MAX_LISTED_MODULES),
  };
}
