import { randomUUID } from 'node:crypto';
import { sleep, type Clock } from '../../core/clock.ts';
import { errorMessage } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Logger } from '../logger.ts';
import { CHANNEL_FORMATS } from './channel-formats.ts';
import { compileModuleGlobs } from './module-glob.ts';
import type { NotificationChannel, NotificationConfig } from './notification-config.ts';
import type { NotificationCounters } from './notification-counters.ts';
import { NotificationEpisodes, type ModuleCondition } from './notification-episodes.ts';
import type { NotificationEvent } from './notification-event.ts';
import { NotificationGrouper } from './notification-grouper.ts';
import { filterMessage, type ChannelFilter, type NotificationMessage } from './notification-message.ts';
import { ChannelSender, type Fetch } from './notification-sender.ts';

/** Where the open episodes are kept across restarts (a ConfigMap, once the operator wires one). */
export interface NotificationStateStore {
  load(): Promise<JsonObject | undefined>;
  save(state: JsonObject): Promise<void>;
}

export interface NotifierOptions {
  readonly config: NotificationConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly counters: NotificationCounters;
  readonly store: NotificationStateStore;
  /** The global fetch unless given. */
  readonly fetch?: Fetch | undefined;
}

/** How long `stop` waits for the queues to empty before it drops what is left. */
const STOP_FLUSH_MS = 5_000;

interface Route {
  readonly channel: NotificationChannel;
  readonly accepts: ChannelFilter;
  readonly sender: ChannelSender;
}

/**
 * Tells people what happens to modules (docs/notifications.md): events become one message per
 * episode, grouped by kind and revision, filtered and formatted per channel, and sent in order.
 *
 * After a start, failures and recoveries are held until `restored` is called once the operator's
 * first pass is over: that call sends one summary of what changed while the operator was down, in
 * place of a message per module. Other kinds are sent from the start.
 */
export class Notifier {
  readonly #options: NotifierOptions;
  readonly #routes: readonly Route[];
  readonly #grouper: NotificationGrouper;
  readonly #loaded: Promise<void>;
  #episodes = new NotificationEpisodes();
  #backlog: NotificationEvent[] | undefined = [];
  #announcing = false;
  #stopped = false;
  #saveAgain = false;
  #saving: Promise<void> | undefined;

  constructor(options: NotifierOptions) {
    this.#options = options;
    const fetch = options.fetch ?? globalThis.fetch;
    const { perMinute, retryBudgetMs, groupWindowMs } = options.config;
    this.#routes = options.config.channels.map((channel) => ({
      channel,
      accepts: acceptsOf(channel),
      sender: new ChannelSender({
        ...options,
        fetch,
        name: channel.name,
        url: channel.url,
        perMinute,
        retryBudgetMs,
      }),
    }));
    this.#grouper = new NotificationGrouper(options.clock, groupWindowMs, (message) => {
      this.#dispatch(message);
    });
    this.#loaded = this.#load();
  }

  /** Takes one event; what it leads to is sent later, within the group window. */
  record(event: NotificationEvent): void {
    if (this.#stopped) return;
    if (this.#backlog !== undefined) this.#backlog.push(event);
    else this.#admit(event);
  }

  /**
   * Called once after the operator's first pass, with every module's state: sends one summary per
   * channel naming modules failing that were never announced and modules that recovered while the
   * operator was down; nothing when neither. From then on failures and recoveries are sent as
   * they come.
   */
  async restored(current: readonly ModuleCondition[]): Promise<void> {
    await this.#loaded;
    if (this.#stopped) return;
    const now = this.#options.clock.now();
    const { failing, recovered } = this.#episodes.restore(current, now);
    this.#announcing = true;
    this.#save();
    if (failing.length + recovered.length > 0)
      this.#dispatch({ kind: 'summary', at: now, failing, recovered });
  }

  /** Resolves once no request is in flight: every queue is empty or waiting on the clock. */
  async settled(): Promise<void> {
    await Promise.all(this.#routes.map(({ sender }) => sender.settled()));
  }

  /**
   * Sends what is grouped now, waits up to STOP_FLUSH_MS on the clock for the queues to empty, then
   * drops what is left and cancels every timer; the state is saved last.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    await this.#loaded;
    this.#stopped = true;
    this.#grouper.flushAll();
    const giveUp = new AbortController();
    const emptied = Promise.all(this.#routes.map(({ sender }) => sender.whenEmpty()));
    await Promise.race([emptied, sleep(this.#options.clock, STOP_FLUSH_MS, giveUp.signal)]);
    giveUp.abort();
    for (const { channel, sender } of this.#routes) {
      const dropped = sender.stop();
      if (dropped > 0)
        this.#options.logger.warn('notifications not sent before stopping; dropped', {
          channel: channel.name,
          dropped,
        });
    }
    this.#save();
    await this.#saving;
  }

  async #load(): Promise<void> {
    try {
      this.#episodes = NotificationEpisodes.fromJson(await this.#options.store.load());
    } catch (thrown: unknown) {
      this.#options.logger.warn('notification state not loaded; starting without open episodes', {
        error: errorMessage(thrown),
      });
    }
    const backlog = this.#backlog ?? [];
    this.#backlog = undefined;
    for (const event of backlog) this.#admit(event);
  }

  #admit(event: NotificationEvent): void {
    const entry = this.#episodes.admit(event, this.#announcing);
    if (event.kind === 'failure' || event.kind === 'recovery') this.#save();
    if (entry !== undefined) this.#grouper.add(event.kind, event.revision, entry);
  }

  #dispatch(message: NotificationMessage): void {
    for (const { channel, accepts, sender } of this.#routes) {
      const filtered = filterMessage(message, accepts);
      if (filtered === undefined) continue;
      const format = CHANNEL_FORMATS[channel.type];
      sender.enqueue(format(filtered, { hmacKey: channel.hmacKey, deliveryId: randomUUID() }));
    }
  }

  /** Saves the episodes, one write at a time; changes made during a write are saved by one more. */
  #save(): void {
    this.#saveAgain = true;
    this.#saving ??= this.#writeState().finally(() => {
      this.#saving = undefined;
      if (this.#saveAgain) this.#save();
    });
  }

  async #writeState(): Promise<void> {
    while (this.#saveAgain) {
      this.#saveAgain = false;
      try {
        await this.#options.store.save(this.#episodes.toJson());
      } catch (thrown: unknown) {
        this.#options.logger.warn('notification state not saved', { error: errorMessage(thrown) });
      }
    }
  }
}

function acceptsOf(channel: NotificationChannel): ChannelFilter {
  const matches = compileModuleGlobs(channel.modules);
  const kinds = new Set(channel.events);
  return (kind, module) => kinds.has(kind) && matches(module);
}
