import { setImmediate } from 'node:timers/promises';
import { backoffDelayMs, type Backoff } from '../../core/backoff.ts';
import { sleep, type Clock } from '../../core/clock.ts';
import { TokenBucket } from '../../core/token-bucket.ts';
import type { Logger } from '../logger.ts';
import type { FormattedRequest } from './formatted-request.ts';
import type { NotificationCounters } from './notification-counters.ts';
import {
  classifyResponse,
  describeFetchError,
  readBounded,
  type AttemptOutcome,
} from './notification-response.ts';

export type Fetch = typeof globalThis.fetch;

/** 1 s doubling to 60 s, jittered: many operators' webhooks failing together should not retry together. */
const RETRY_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000, jitter: true };
const REQUEST_TIMEOUT_MS = 10_000;
/** Webhook answers are read only to free the connection, never kept. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Bursts stay small: Slack and Teams throttle a webhook at about one request a second. */
const MAX_BURST = 5;

export interface ChannelSenderOptions {
  readonly name: string;
  readonly url: string;
  readonly perMinute: number;
  readonly retryBudgetMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly counters: NotificationCounters;
  readonly fetch: Fetch;
}

interface Pending {
  readonly request: FormattedRequest;
  firstTriedAt: number | undefined;
  failures: number;
}

/**
 * One channel's queue (docs/notifications.md "Delivery"): messages go out in order, one at a time,
 * within the rate limit; a failed one is retried with backoff until the retry budget is spent, and
 * the ones behind it wait. The URL is a secret: logs name the channel, never the URL.
 */
export class ChannelSender {
  readonly #options: ChannelSenderOptions;
  readonly #bucket: TokenBucket;
  readonly #queue: Pending[] = [];
  readonly #stopping = new AbortController();
  readonly #logger: Logger;
  #draining: Promise<void> | undefined;
  #inFlight: Promise<unknown> | undefined;

  constructor(options: ChannelSenderOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ channel: options.name });
    const intervalMs = 60_000 / options.perMinute;
    this.#bucket = new TokenBucket(
      { intervalMs, burst: Math.min(options.perMinute, MAX_BURST) },
      options.clock.now(),
    );
  }

  /** Messages not yet sent, the one being tried included. */
  get pending(): number {
    return this.#queue.length;
  }

  enqueue(request: FormattedRequest): void {
    if (this.#stopping.signal.aborted) return;
    this.#queue.push({ request, firstTriedAt: undefined, failures: 0 });
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  /** Resolves once the queue is empty, or the sender stopped. */
  async whenEmpty(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  /** Resolves once no request is in flight: the queue is empty or waits on the clock. */
  async settled(): Promise<void> {
    for (;;) {
      if (this.#inFlight !== undefined) await this.#inFlight;
      await setImmediate();
      if (this.#inFlight === undefined) return;
    }
  }

  /** Aborts the request in flight and drops what is left; returns how many messages were dropped. */
  stop(): number {
    this.#stopping.abort();
    return this.#queue.splice(0).length;
  }

  async #drain(): Promise<void> {
    const signal = this.#stopping.signal;
    for (let next = this.#queue[0]; next !== undefined && !signal.aborted; next = this.#queue[0]) {
      await this.#waitForToken(signal);
      if (this.#isStopping()) return;
      const retryInMs = await this.#tryOnce(next);
      if (retryInMs === undefined) this.#queue.shift();
      else await sleep(this.#options.clock, retryInMs, signal);
    }
  }

  #isStopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  async #waitForToken(signal: AbortSignal): Promise<void> {
    const { clock } = this.#options;
    for (
      let delay = this.#bucket.delayMs(clock.now());
      delay > 0;
      delay = this.#bucket.delayMs(clock.now())
    ) {
      await sleep(clock, delay, signal);
      if (signal.aborted) return;
    }
    this.#bucket.take(clock.now());
  }

  /** Sends `pending` once: undefined when it is done with (sent, refused, out of budget), else the wait before the next try. */
  async #tryOnce(pending: Pending): Promise<number | undefined> {
    const { clock, counters, name, retryBudgetMs } = this.#options;
    pending.firstTriedAt ??= clock.now();
    const attempt = this.#post(pending.request);
    this.#inFlight = attempt;
    const outcome = await attempt.finally(() => {
      this.#inFlight = undefined;
    });
    if (outcome.kind === 'sent') {
      counters.sent(name);
      return undefined;
    }
    if (outcome.kind === 'rejected') {
      counters.failed(name, 'rejected');
      this.#logger.error('notification refused by the channel; dropped', { status: outcome.status });
      return undefined;
    }
    if (this.#stopping.signal.aborted) return undefined;
    counters.failed(name, outcome.reason);
    pending.failures += 1;
    const delay =
      outcome.retryAfterMs ?? backoffDelayMs(pending.failures, RETRY_BACKOFF, () => clock.random());
    const fields = { status: outcome.status, error: outcome.error, failures: pending.failures };
    if (clock.now() + delay - pending.firstTriedAt > retryBudgetMs) {
      counters.failed(name, 'budget');
      this.#logger.error('notification not sent within the retry budget; dropped', fields);
      return undefined;
    }
    this.#logger.warn('notification not sent; will retry', { ...fields, retryInMs: delay });
    return delay;
  }

  async #post(request: FormattedRequest): Promise<AttemptOutcome> {
    const { clock, url } = this.#options;
    const controller = new AbortController();
    const abort = (): void => {
      controller.abort();
    };
    const cancelTimeout = clock.setTimer(abort, REQUEST_TIMEOUT_MS);
    this.#stopping.signal.addEventListener('abort', abort, { once: true });
    try {
      const response = await this.#options.fetch(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        // A redirect is not followed: the body and its signature are for this URL alone.
        redirect: 'manual',
      });
      await readBounded(response, MAX_RESPONSE_BYTES);
      return classifyResponse(response.status, response.headers.get('retry-after'), clock.now());
    } catch (thrown: unknown) {
      const timedOut = controller.signal.aborted && !this.#stopping.signal.aborted;
      const error = timedOut
        ? `no answer within ${REQUEST_TIMEOUT_MS / 1000}s`
        : describeFetchError(thrown, url);
      return { kind: 'retry', reason: 'network', status: undefined, error, retryAfterMs: undefined };
    } finally {
      cancelTimeout();
      this.#stopping.signal.removeEventListener('abort', abort);
    }
  }
}
