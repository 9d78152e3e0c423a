import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { NotificationEvent } from './notification-event.ts';
import type { MessageEntry } from './notification-message.ts';

/** A module failing: from its first failure until it recovers. Plain data, saved across restarts. */
export interface Episode {
  readonly since: number;
  reason: string;
  message: string;
  /** Failures seen in the episode, the first included. */
  count: number;
  /** Whether a failure message went out for it; an unannounced episode ends in silence. */
  announced: boolean;
  /** A recovery seen before the restart summary, which then reports it. */
  recoveredAt?: number | undefined;
}

/** A module's state as the operator's first pass after a start found it. */
export interface ModuleCondition {
  readonly module: string;
  readonly failing: boolean;
  readonly reason: string;
  readonly message: string;
}

/** What the restart summary says: failures nobody was told of, and announced failures now over. */
export interface RestoredEpisodes {
  readonly failing: readonly MessageEntry[];
  readonly recovered: readonly MessageEntry[];
}

/**
 * One message per episode (docs/notifications.md "Episodes"): a module's first failure opens one
 * and is announced, later failures are counted, its recovery closes it and is announced with the
 * downtime. A module retried every minute for an hour is two messages, not sixty.
 */
export class NotificationEpisodes {
  readonly #open = new Map<string, Episode>();

  /** Episodes as `toJson` wrote them; entries that do not read as episodes are skipped. */
  static fromJson(value: JsonValue | undefined): NotificationEpisodes {
    const episodes = new NotificationEpisodes();
    const open = isJsonObject(value) ? value.episodes : undefined;
    if (!isJsonObject(open)) return episodes;
    for (const [module, item] of Object.entries(open)) {
      const episode = readEpisode(item);
      if (episode !== undefined) episodes.#open.set(module, episode);
    }
    return episodes;
  }

  /** The open episodes as JSON: `{ episodes: { <module>: { since, reason, message, count, announced } } }`. */
  toJson(): JsonObject {
    const episodes: JsonObject = {};
    for (const [module, { since, reason, message, count, announced, recoveredAt }] of this.#open) {
      const episode: JsonObject = { since, reason, message, count, announced };
      if (recoveredAt !== undefined) episode.recoveredAt = recoveredAt;
      episodes[module] = episode;
    }
    return { episodes };
  }

  /** The open episode of `module`, if any. */
  find(module: string): Readonly<Episode> | undefined {
    return this.#open.get(module);
  }

  /**
   * The entry to announce for `event`, or undefined when it is not news. Before the restart summary
   * (`announce` false) failures are counted and recoveries kept, for `restore` to report.
   */
  admit(event: NotificationEvent, announce: boolean): MessageEntry | undefined {
    const entry: MessageEntry = {
      module: event.module,
      reason: event.reason,
      message: event.message,
      at: event.at,
    };
    if (event.kind === 'failure') return this.#fail(event, entry, announce);
    if (event.kind === 'recovery') return this.#recover(event, entry, announce);
    return entry;
  }

  /**
   * Settles every episode against the modules' state after a restart: failing modules not yet
   * announced are announced now, announced ones that are fine now recovered while the operator was
   * down. Episodes of modules no longer listed end in silence: the module is gone, not recovered.
   */
  restore(current: readonly ModuleCondition[], now: number): RestoredEpisodes {
    const failing: MessageEntry[] = [];
    const recovered: MessageEntry[] = [];
    const listed = new Set(current.map(({ module }) => module));
    for (const module of this.#open.keys()) if (!listed.has(module)) this.#open.delete(module);
    for (const { module, failing: isFailing, reason, message } of current) {
      const episode = this.#open.get(module);
      if (isFailing) {
        if (episode?.announced === true) {
          episode.recoveredAt = undefined;
          continue;
        }
        const opened = episode ?? { since: now, reason, message, count: 1, announced: false };
        Object.assign(opened, { reason, message, announced: true });
        this.#open.set(module, opened);
        failing.push({
          module,
          reason,
          message,
          at: now,
          episode: { since: opened.since, failures: opened.count },
        });
      } else if (episode !== undefined) {
        this.#open.delete(module);
        if (episode.announced)
          recovered.push({
            module,
            reason,
            message,
            at: now,
            episode: closedFacts(episode, episode.recoveredAt ?? now),
          });
      }
    }
    return { failing, recovered };
  }

  #fail(event: NotificationEvent, entry: MessageEntry, announce: boolean): MessageEntry | undefined {
    const episode = this.#open.get(event.module);
    if (episode !== undefined) {
      episode.count += 1;
      episode.recoveredAt = undefined;
      return undefined;
    }
    this.#open.set(event.module, {
      since: event.at,
      reason: event.reason,
      message: event.message,
      count: 1,
      announced: announce,
    });
    return announce ? { ...entry, episode: { since: event.at, failures: 1 } } : undefined;
  }

  #recover(event: NotificationEvent, entry: MessageEntry, announce: boolean): MessageEntry | undefined {
    const episode = this.#open.get(event.module);
    if (episode === undefined) return undefined;
    if (!announce && episode.announced) {
      episode.recoveredAt ??= event.at;
      return undefined;
    }
    this.#open.delete(event.module);
    return episode.announced ? { ...entry, episode: closedFacts(episode, event.at) } : undefined;
  }
}

function closedFacts(episode: Episode, until: number): MessageEntry['episode'] {
  return { since: episode.since, failures: episode.count, downMs: Math.max(0, until - episode.since) };
}

function readEpisode(item: JsonValue | undefined): Episode | undefined {
  if (!isJsonObject(item)) return undefined;
  const { since, reason, message, count, announced, recoveredAt } = item;
  if (typeof since !== 'number' || typeof count !== 'number' || typeof announced !== 'boolean')
    return undefined;
  return {
    since,
    reason: typeof reason === 'string' ? reason : '',
    message: typeof message === 'string' ? message : '',
    count,
    announced,
    recoveredAt: typeof recoveredAt === 'number' ? recoveredAt : undefined,
  };
}
