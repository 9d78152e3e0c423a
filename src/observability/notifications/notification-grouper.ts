import type { Clock } from '../../core/clock.ts';
import type { NotificationKind } from './notification-event.ts';
import type { EventMessage, MessageEntry } from './notification-message.ts';

interface Group {
  readonly kind: NotificationKind;
  readonly revision: string | undefined;
  readonly at: number;
  /** By module: a module seen twice in a window is named once, with its latest event. */
  readonly entries: Map<string, MessageEntry>;
  readonly cancel: () => void;
}

/**
 * Gathers events of one kind and one revision arriving within the group window of the first into
 * one message (docs/notifications.md "Grouping"): a Git revision that breaks thirty modules is one
 * message naming them, not thirty.
 */
export class NotificationGrouper {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #emit: (message: EventMessage) => void;
  readonly #groups = new Map<string, Group>();

  constructor(clock: Clock, windowMs: number, emit: (message: EventMessage) => void) {
    this.#clock = clock;
    this.#windowMs = windowMs;
    this.#emit = emit;
  }

  add(kind: NotificationKind, revision: string | undefined, entry: MessageEntry): void {
    const key = `${kind}\u0000${revision ?? ''}`;
    const group = this.#groups.get(key) ?? this.#open(key, kind, revision, entry.at);
    group.entries.delete(entry.module);
    group.entries.set(entry.module, entry);
    if (this.#windowMs === 0) this.#close(key);
  }

  /** Sends every open group now, as when the operator stops. */
  flushAll(): void {
    for (const key of [...this.#groups.keys()]) this.#close(key);
  }

  #open(key: string, kind: NotificationKind, revision: string | undefined, at: number): Group {
    const cancel =
      this.#windowMs === 0
        ? () => undefined
        : this.#clock.setTimer(() => {
            this.#close(key);
          }, this.#windowMs);
    const group: Group = { kind, revision, at, entries: new Map(), cancel };
    this.#groups.set(key, group);
    return group;
  }

  #close(key: string): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    this.#groups.delete(key);
    group.cancel();
    const { kind, revision, at } = group;
    this.#emit({ kind, revision, at, entries: [...group.entries.values()] });
  }
}
