import { backoffDelayMs, type Backoff } from '../core/backoff.ts';
import { sleep, systemClock, type Clock } from '../core/clock.ts';
import { errorMessage } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Logger } from '../observability/logger.ts';
import type { EventSubject, RecordedEvent } from './event-recorder.ts';
import { KubeApiError, type KubeClient } from './kube-client.ts';

/** Where the restorer reports: Events on the ConfigMap, and whether it is missing (a gauge). */
export interface ConfigMapReports {
  readonly record?: (subject: EventSubject, event: RecordedEvent) => void;
  readonly missing?: (isMissing: boolean) => void;
}

export interface ConfigMapRestorerOptions {
  readonly api: Pick<KubeClient, 'request'>;
  readonly namespace: string;
  readonly name: string;
  readonly logger: Logger;
  readonly reports?: ConfigMapReports;
  readonly clock?: Clock;
  /** Between tries while the API refuses the create; default 1 s doubling to 60 s. */
  readonly backoff?: Backoff;
}

const RESTORE_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000, jitter: true };

/**
 * Re-creates a deleted config ConfigMap from the last good state the watch saw (docs/lifecycle.md
 * "Missing inputs and mass deletion"), as its owner would: the same data, labels and annotations.
 * While the API refuses (RBAC without `create`, an admission webhook), it tries again with backoff and
 * the absence stays reported: a Warning Event on the ConfigMap and the `config_map_missing` gauge.
 */
export class ConfigMapRestorer {
  readonly #options: ConfigMapRestorerOptions;
  readonly #clock: Clock;
  #running: AbortController | undefined;

  constructor(options: ConfigMapRestorerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  get #id(): string {
    return `${this.#options.namespace}/${this.#options.name}`;
  }

  /** The ConfigMap is gone: reported, then re-created from `last` until that works or it is back. */
  missing(last: JsonObject): void {
    if (this.#running !== undefined) return;
    this.#options.reports?.missing?.(true);
    this.#event(
      'Warning',
      'ConfigMapDeleted',
      'Keep',
      `ConfigMap ${this.#id} was deleted: its last config stays in force and it is re-created from that config.`,
    );
    const running = new AbortController();
    this.#running = running;
    void this.#restore(last, running.signal);
  }

  /** It exists again (re-created here or by someone else). */
  back(): void {
    this.#running?.abort();
    this.#running = undefined;
    this.#options.reports?.missing?.(false);
  }

  stop(): void {
    this.#running?.abort();
    this.#running = undefined;
  }

  async #restore(last: JsonObject, signal: AbortSignal): Promise<void> {
    const backoff = this.#options.backoff ?? RESTORE_BACKOFF;
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        // Not aborted by back(): the watch may see the object before this request has its answer.
        await this.#options.api.request('POST', this.#collectionPath(), { body: this.#copyOf(last) });
        this.#options.logger.warn('ConfigMap re-created from its last config', { configMap: this.#id });
        this.#event(
          'Normal',
          'ConfigMapRecreated',
          'Create',
          `ConfigMap ${this.#id} was re-created from the last config kaddon had in force.`,
        );
        return;
      } catch (error: unknown) {
        // Back meanwhile, or someone re-created it first: the watch sees it.
        if (isAborted(signal)) return;
        if (error instanceof KubeApiError && error.status === 409) return;
        if (attempt === 1) this.#refused(error);
      }
      await sleep(
        this.#clock,
        backoffDelayMs(attempt, backoff, () => this.#clock.random()),
        signal,
      );
    }
  }

  #refused(error: unknown): void {
    const forbidden = error instanceof KubeApiError && error.status === 403;
    const hint = forbidden
      ? 'Grant kaddon create on configmaps in its namespace (docs/rbac.md), or re-create the ConfigMap.'
      : 'It is tried again with backoff; re-create the ConfigMap to end this at once.';
    this.#options.logger.warn(
      `ConfigMap ${this.#id} could not be re-created; the last config stays in force. ${hint}`,
      {
        configMap: this.#id,
        error: errorMessage(error),
      },
    );
    this.#event(
      'Warning',
      'ConfigMapNotRecreated',
      'Create',
      `ConfigMap ${this.#id} could not be re-created: ${errorMessage(error)}. ${hint}`,
    );
  }

  #event(type: RecordedEvent['type'], reason: string, action: string, note: string): void {
    this.#options.reports?.record?.(
      { apiVersion: 'v1', kind: 'ConfigMap', name: this.#options.name, namespace: this.#options.namespace },
      { type, reason, action, note },
    );
  }

  #collectionPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.#options.namespace)}/configmaps`;
  }

  /** The object as its owner wrote it: what the server set (uid, resourceVersion, managedFields) left out. */
  #copyOf(last: JsonObject): JsonObject {
    const metadata = isJsonObject(last.metadata) ? last.metadata : {};
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: this.#options.name,
        namespace: this.#options.namespace,
        ...(isJsonObject(metadata.labels) ? { labels: metadata.labels } : {}),
        ...(isJsonObject(metadata.annotations) ? { annotations: metadata.annotations } : {}),
      },
      ...(isJsonObject(last.data) ? { data: last.data } : {}),
    };
  }
}

/** Read through a call: the flag changes while a request is awaited. */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
