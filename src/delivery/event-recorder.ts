import { systemClock, type Clock } from '../core/clock.ts';
import { errorMessage } from '../core/errors.ts';
import { TokenBucket } from '../core/token-bucket.ts';
import { cleanText } from '../core/untrusted-text.ts';
import type { Logger } from '../observability/logger.ts';
import { KubeApiError, type KubeClient } from './kube-client.ts';

export interface RecordedEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

/** The object an event is about. */
export interface EventSubject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid?: string | undefined;
  /** A namespaced object's namespace, where its Events live; none for a cluster-scoped one. */
  readonly namespace?: string;
}

/** Events about cluster-scoped objects must live in `default` (or `kube-system`). */
const CLUSTER_EVENTS_NAMESPACE = 'default';

function eventsPath(namespace: string): string {
  return `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
}
/** A series idle this long is forgotten: the next occurrence starts a new Event. */
const SERIES_IDLE_MS = 6 * 60_000;
/** A series' count is sent at most this often; occurrences between are counted and sent together. */
const SERIES_FLUSH_MS = 30_000;
/** The API's limit on `note`, in bytes (events.k8s.io/v1 validation). */
const MAX_NOTE_BYTES = 1024;

interface Series {
  readonly name: string;
  readonly namespace: string;
  count: number;
  sentCount: number;
  lastObservedTime: number;
  flushTimer: (() => void) | undefined;
}

/**
 * Events (events.k8s.io/v1) about Module objects (and the operator's ConfigMap), aggregated and rate-limited the way client-go's
 * recorder does (docs/module-status.md "Events"): the same (type, reason, action, object) again
 * within 6 minutes bumps one Event's `series.count` instead of making a new one, and each object may
 * start at most 25 Events at once, then one every 5 minutes. Never throws; a failure is logged.
 */
export class EventRecorder {
  readonly #api: Pick<KubeClient, 'request'>;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #instance: string;
  readonly #mask: (text: string) => string;
  readonly #series = new Map<string, Series>();
  readonly #buckets = new Map<string, TokenBucket>();
  #off = false;

  constructor(
    api: Pick<KubeClient, 'request'>,
    logger: Logger,
    options: { instance: string; clock?: Clock; mask?: ((text: string) => string) | undefined },
  ) {
    this.#api = api;
    this.#logger = logger;
    this.#clock = options.clock ?? systemClock;
    this.#instance = options.instance.slice(0, 128);
    this.#mask = options.mask ?? ((text) => text);
  }

  record(subject: EventSubject, event: RecordedEvent): void {
    if (this.#off) return;
    const key = JSON.stringify([
      event.type,
      event.reason,
      event.action,
      subject.kind,
      subject.namespace,
      subject.name,
    ]);
    const now = this.#clock.now();
    const series = this.#series.get(key);
    if (series !== undefined && now - series.lastObservedTime <= SERIES_IDLE_MS) {
      series.count += 1;
      series.lastObservedTime = now;
      series.flushTimer ??= this.#clock.setTimer(
        () => {
          series.flushTimer = undefined;
          void this.#sendSeries(series);
        },
        series.sentCount === 1 ? 0 : SERIES_FLUSH_MS,
      );
      return;
    }
    if (!this.#allow(subject.name, now)) return;
    const name = `${subject.name}.${(BigInt(now) * 1_000_000n).toString(16)}`;
    const namespace = subject.namespace ?? CLUSTER_EVENTS_NAMESPACE;
    this.#series.set(key, {
      name,
      namespace,
      count: 1,
      sentCount: 1,
      lastObservedTime: now,
      flushTimer: undefined,
    });
    void this.#create(name, subject, event, now);
  }

  stop(): void {
    for (const series of this.#series.values()) series.flushTimer?.();
  }

  #allow(object: string, now: number): boolean {
    let bucket = this.#buckets.get(object);
    if (bucket === undefined) {
      bucket = new TokenBucket({ intervalMs: 300_000, burst: 25 }, now);
      this.#buckets.set(object, bucket);
    }
    if (bucket.delayMs(now) > 0) return false;
    bucket.take(now);
    return true;
  }

  async #create(name: string, subject: EventSubject, event: RecordedEvent, now: number): Promise<void> {
    const namespace = subject.namespace ?? CLUSTER_EVENTS_NAMESPACE;
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: 'kaddon.dev/operator',
      reportingInstance: this.#instance,
      action: event.action,
      reason: event.reason,
      type: event.type,
      note: this.#noteOf(event.note),
      regarding: {
        apiVersion: subject.apiVersion,
        kind: subject.kind,
        name: subject.name,
        ...(subject.namespace ? { namespace: subject.namespace } : {}),
        ...(subject.uid ? { uid: subject.uid } : {}),
      },
    };
    try {
      await this.#api.request('POST', eventsPath(namespace), { body });
    } catch (error: unknown) {
      this.#failed(error);
    }
  }

  /**
   * A note fit for a cluster-wide object: secrets masked, escapes and control characters out, at
   * most 1 KiB (docs/hooks.md "What of a hook's output leaves the operator").
   */
  #noteOf(text: string): string {
    const clean = cleanText(text, { maxBytes: Number.MAX_SAFE_INTEGER, keepLineFeeds: true });
    return cleanText(this.#mask(clean), { maxBytes: MAX_NOTE_BYTES, keepLineFeeds: true });
  }

  async #sendSeries(series: Series): Promise<void> {
    if (series.count === series.sentCount) return;
    series.sentCount = series.count;
    const body = { series: { count: series.count, lastObservedTime: microTime(series.lastObservedTime) } };
    try {
      await this.#api.request('PATCH', `${eventsPath(series.namespace)}/${series.name}`, {
        body,
        contentType: 'application/merge-patch+json',
      });
    } catch (error: unknown) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    if (error instanceof KubeApiError && error.status === 403) {
      this.#off = true;
      this.#logger.info('events are off: creating events.k8s.io Events in namespace default is forbidden', {
        error: errorMessage(error),
      });
      return;
    }
    this.#logger.error('event not recorded', { error: errorMessage(error) });
  }
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
