import { errorMessage } from '../core/errors.ts';
import { classifyConfigChange, isConfigChanged, type ConfigChange } from '../core/config-change.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { EMPTY_CONFIG_VALUES, type ConfigValues } from '../core/values.ts';
import type { Logger } from '../observability/logger.ts';
import { jitteredBackoffMs, type Backoff } from '../core/backoff.ts';
import { SYSTEM_CLOCK, type ConfigMapClock } from './configmap-clock.ts';
import type { ConfigMapApi } from './configmap-config-store.ts';
import { KubeApiError, type WatchEvent } from './kube-client.ts';

/** Called with each valid config that differs from the one before (docs/lifecycle.md step 16). */
export type OnConfigChange = (config: ConfigValues, change: ConfigChange) => void | Promise<void>;

export interface ConfigMapWatchOptions {
  /** The config in force now (what load() returned); the first list is compared with it. Default: empty. */
  readonly known?: ConfigValues;
  /** A further check, e.g. the values store's schema check; a throw makes the change invalid. */
  readonly validate?: (config: ConfigValues) => void | Promise<void>;
  /** Told of each invalid change (addon-operator's KubeConfigInvalid), after it is logged and counted. */
  readonly onInvalid?: (error: unknown) => void;
}

/** What the watch needs from its store. */
export interface ConfigMapWatchTarget {
  readonly api: ConfigMapApi;
  readonly collectionPath: string;
  readonly name: string;
  readonly id: string;
  readonly parse: (configMap: JsonObject | undefined) => ConfigValues;
  readonly countInvalid: () => void;
  readonly logger: Logger;
  readonly clock?: ConfigMapClock;
  readonly backoff?: Backoff;
}

const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000 };
/** A watch the server closes sooner than this without an event counts as a failure (no tight loop). */
const MIN_HEALTHY_WATCH_MS = 1000;

/**
 * A supervised list+watch of one ConfigMap (a field selector on its name, as addon-operator's
 * informer). It reconnects after closed connections, 410 Gone, apiserver restarts and 5xx/403
 * with exponential backoff and jitter, and stops only when stopped. A change that does not
 * parse or validate is logged and counted and the last good config stays in force.
 */
export class ConfigMapWatch {
  /** Settles when the watch has stopped; it never rejects. */
  readonly done: Promise<void>;
  readonly #target: ConfigMapWatchTarget;
  readonly #onChange: OnConfigChange;
  readonly #options: ConfigMapWatchOptions;
  readonly #controller = new AbortController();
  readonly #clock: ConfigMapClock;
  #known: ConfigValues;
  #invalidVersion: string | undefined;
  #watchHealthy = false;
  #tail: Promise<void> = Promise.resolve();

  constructor(target: ConfigMapWatchTarget, onChange: OnConfigChange, options: ConfigMapWatchOptions) {
    this.#target = target;
    this.#onChange = onChange;
    this.#options = options;
    this.#clock = target.clock ?? SYSTEM_CLOCK;
    this.#known = options.known ?? EMPTY_CONFIG_VALUES;
    this.done = this.#run();
  }

  /** The last valid config seen. */
  get config(): ConfigValues {
    return this.#known;
  }

  async stop(): Promise<void> {
    this.#controller.abort();
    await this.done;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#isStopped()) {
      try {
        let version = await this.#list();
        while (!this.#isStopped()) {
          version = await this.#watchFrom(version);
          if (this.#isStopped()) break;
          failures = this.#watchHealthy ? 0 : failures + 1;
          if (failures > 0) await this.#pause(failures);
        }
      } catch (error: unknown) {
        if (this.#isStopped()) break;
        // A watch that ran well before it broke starts the backoff afresh.
        failures = this.#watchHealthy ? 1 : failures + 1;
        this.#watchHealthy = false;
        this.#reportLost(error, failures);
        await this.#pause(failures);
      }
    }
    await this.#tail;
  }

  /** Lists the ConfigMap, handles what it holds (absent → empty config) and returns the list's version. */
  async #list(): Promise<string> {
    const list = await this.#target.api.request('GET', this.#target.collectionPath, {
      query: { fieldSelector: this.#fieldSelector() },
    });
    const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
    await this.#enqueue(items[0]);
    return resourceVersionOf(list) ?? '';
  }

  /**
   * Watches from `version` until the server ends the watch; returns the last version seen. The
   * watch counts as healthy once it delivered an event or lasted MIN_HEALTHY_WATCH_MS.
   */
  async #watchFrom(version: string): Promise<string> {
    let last = version;
    const started = this.#clock.now();
    this.#watchHealthy = false;
    const timeoutSeconds = 240 + Math.floor(this.#clock.random() * 120);
    const onEvent = (event: WatchEvent): void => {
      this.#watchHealthy = true;
      last = resourceVersionOf(event.object) ?? last;
      if (event.type === 'BOOKMARK') return;
      void this.#enqueue(event.type === 'DELETED' ? undefined : event.object);
    };
    try {
      await this.#target.api.watch(
        this.#target.collectionPath,
        {
          fieldSelector: this.#fieldSelector(),
          resourceVersion: version,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        onEvent,
        { signal: this.#controller.signal, idleMs: (timeoutSeconds + 60) * 1000 },
      );
    } finally {
      if (this.#clock.now() - started >= MIN_HEALTHY_WATCH_MS) this.#watchHealthy = true;
    }
    return last;
  }

  /** Handles states one at a time, in the order they arrived; never rejects. */
  #enqueue(configMap: JsonObject | undefined): Promise<void> {
    this.#tail = this.#tail.then(() => this.#handle(configMap));
    return this.#tail;
  }

  async #handle(configMap: JsonObject | undefined): Promise<void> {
    let config: ConfigValues;
    try {
      config = this.#target.parse(configMap);
      await this.#options.validate?.(config);
    } catch (error: unknown) {
      this.#reportInvalid(error, configMap);
      return;
    }
    this.#invalidVersion = undefined;
    const change = classifyConfigChange(this.#known, config);
    this.#known = config;
    if (!isConfigChanged(change)) return;
    try {
      await this.#onChange(config, change);
    } catch (error: unknown) {
      this.#target.logger.error('ConfigMap change handler failed', {
        configMap: this.#target.id,
        reason: errorMessage(error),
      });
    }
  }

  /** Logs and counts an invalid state once, however often a relist shows it again. */
  #reportInvalid(error: unknown, configMap: JsonObject | undefined): void {
    const version = configMap ? resourceVersionOf(configMap) : undefined;
    if (version !== undefined && version === this.#invalidVersion) return;
    this.#invalidVersion = version;
    this.#target.countInvalid();
    this.#target.logger.error(
      'config values in the ConfigMap are invalid; the last good config stays in force',
      {
        configMap: this.#target.id,
        resourceVersion: version,
        reason: errorMessage(error),
      },
    );
    this.#options.onInvalid?.(error);
  }

  #reportLost(error: unknown, failures: number): void {
    const status = error instanceof KubeApiError ? error.status : undefined;
    const fields = { configMap: this.#target.id, status, failures, reason: errorMessage(error) };
    // 410 Gone only means the watch fell behind the server's history: relist, nothing is wrong.
    if (status === 410) this.#target.logger.info('ConfigMap watch expired; listing again', fields);
    else this.#target.logger.error('ConfigMap watch failed; reconnecting with backoff', fields);
  }

  async #pause(failures: number): Promise<void> {
    const ms = jitteredBackoffMs(failures, this.#target.backoff ?? DEFAULT_BACKOFF, () =>
      this.#clock.random(),
    );
    await this.#clock.sleep(ms, this.#controller.signal);
  }

  #isStopped(): boolean {
    return this.#controller.signal.aborted;
  }

  #fieldSelector(): string {
    return `metadata.name=${this.#target.name}`;
  }
}

function resourceVersionOf(object: JsonObject): string | undefined {
  const metadata = object.metadata;
  const version = isJsonObject(metadata) ? metadata.resourceVersion : undefined;
  return typeof version === 'string' ? version : undefined;
}
