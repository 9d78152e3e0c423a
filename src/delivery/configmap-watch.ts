import { errorMessage } from '../core/errors.ts';
import { classifyConfigChange, isConfigChanged, type ConfigChange } from '../core/config-change.ts';
import type { JsonObject } from '../core/json.ts';
import { resourceVersionOf } from '../core/object-key.ts';
import { EMPTY_CONFIG_VALUES, type ConfigValues } from '../core/values.ts';
import type { Logger } from '../observability/logger.ts';
import type { Backoff } from '../core/backoff.ts';
import type { Clock } from '../core/clock.ts';
import { ListWatch, type ListWatchFailure, type WatchApi } from './list-watch.ts';

/** Called with each valid config that differs from the one before (docs/lifecycle.md step 16). */
export type OnConfigChange = (config: ConfigValues, change: ConfigChange) => void | Promise<void>;

export interface ConfigMapWatchOptions {
  /** The config in force now (what load() returned); the first list is compared with it. Default: empty. */
  readonly known?: ConfigValues;
  /** A further check, e.g. the values store's schema check; a throw makes the change invalid. */
  readonly validate?: (config: ConfigValues) => void | Promise<void>;
  /** Told of each invalid change (addon-operator's KubeConfigInvalid), after it is logged and counted. */
  readonly onInvalid?: (error: unknown) => void;
  /** Told of every state of the ConfigMap that exists, valid or not (its annotations, for one). */
  readonly onObject?: (configMap: JsonObject) => void;
}

/** What the watch does when the ConfigMap it followed is gone, and when it is back. */
interface ConfigMapAbsence {
  /** The ConfigMap was deleted; `last` is the last valid state seen, whose config stays in force. */
  readonly missing: (last: JsonObject) => void;
  /** It exists again. */
  readonly back: () => void;
  /** The watch stopped. */
  readonly stop: () => void;
}

/** What the watch needs from its store. */
export interface ConfigMapWatchTarget {
  readonly api: WatchApi;
  readonly collectionPath: string;
  readonly name: string;
  readonly id: string;
  readonly parse: (configMap: JsonObject | undefined) => ConfigValues;
  readonly countInvalid: () => void;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly backoff?: Backoff;
  readonly absence?: ConfigMapAbsence;
}

/**
 * A supervised list+watch of one ConfigMap (a field selector on its name, as addon-operator's
 * informer), on the one list+watch loop (ListWatch): it reconnects after closed connections, 410
 * Gone, apiserver restarts and 5xx/403 with backoff and jitter, and stops only when stopped. A change
 * that does not parse or validate is logged and counted and the last good config stays in force.
 * A ConfigMap deleted is a missing input, never an empty one (docs/lifecycle.md "Missing inputs and
 * mass deletion"): its last good config stays in force and the absence is handed on.
 */
export class ConfigMapWatch {
  /** Settles when the watch has stopped; it never rejects. */
  readonly done: Promise<void>;
  readonly #target: ConfigMapWatchTarget;
  readonly #onChange: OnConfigChange;
  readonly #options: ConfigMapWatchOptions;
  readonly #watch: ListWatch;
  #known: ConfigValues;
  /** The last valid state seen: what a deleted ConfigMap is re-created from. */
  #lastGood: JsonObject | undefined;
  #isMissing = false;
  #invalidVersion: string | undefined;
  #tail: Promise<void> = Promise.resolve();
  #stopped: () => void = () => undefined;
  #isStopped = false;

  constructor(target: ConfigMapWatchTarget, onChange: OnConfigChange, options: ConfigMapWatchOptions) {
    this.#target = target;
    this.#onChange = onChange;
    this.#options = options;
    this.#known = options.known ?? EMPTY_CONFIG_VALUES;
    this.#watch = new ListWatch(
      {
        path: target.collectionPath,
        fieldSelector: `metadata.name=${target.name}`,
        apiVersion: 'v1',
        kind: 'ConfigMap',
      },
      {
        api: target.api,
        timing: {
          ...(target.clock ? { clock: target.clock } : {}),
          ...(target.backoff ? { backoff: target.backoff } : {}),
        },
        onFailure: (failure) => {
          this.#reportLost(failure);
        },
      },
    );
    const stopped = new Promise<void>((resolve) => (this.#stopped = resolve));
    this.done = this.#follow(stopped);
  }

  /** The last valid config seen. */
  get config(): ConfigValues {
    return this.#known;
  }

  /** The last valid state of the ConfigMap seen, once one was. */
  get lastGood(): JsonObject | undefined {
    return this.#lastGood;
  }

  async stop(): Promise<void> {
    this.#isStopped = true;
    this.#target.absence?.stop();
    await this.#watch.stop();
    this.#stopped();
    await this.done;
  }

  async #follow(stopped: Promise<void>): Promise<void> {
    this.#watch.start();
    // Events that come between the first list and this function resuming follow the listed state.
    let early: (JsonObject | undefined)[] | undefined = [];
    const objects = await this.#watch.subscribe({
      label: 'config values',
      onEvent: (event) => {
        const state = event.type === 'Deleted' ? undefined : event.object;
        if (early === undefined) void this.#enqueue(state);
        else early.push(state);
      },
    });
    const initial = this.#isStopped ? Promise.resolve() : this.#enqueue(objects[0]);
    for (const state of early) void this.#enqueue(state);
    early = undefined;
    await initial;
    await stopped;
    await this.#tail;
  }

  /** Handles states one at a time, in the order they arrived; never rejects. */
  #enqueue(configMap: JsonObject | undefined): Promise<void> {
    this.#tail = this.#tail.then(() => this.#handle(configMap));
    return this.#tail;
  }

  async #handle(configMap: JsonObject | undefined): Promise<void> {
    if (configMap === undefined) {
      this.#reportMissing();
      return;
    }
    if (this.#isMissing) {
      this.#isMissing = false;
      this.#target.logger.info('ConfigMap is there again', { configMap: this.#target.id });
      this.#target.absence?.back();
    }
    this.#options.onObject?.(configMap);
    let config: ConfigValues;
    try {
      config = this.#target.parse(configMap);
      await this.#options.validate?.(config);
    } catch (error: unknown) {
      this.#reportInvalid(error, configMap);
      return;
    }
    this.#invalidVersion = undefined;
    this.#lastGood = configMap;
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

  /**
   * Absent at the first list, before any state was seen: the config the store was opened with stays.
   * Deleted later: its last good config stays in force, said once per absence.
   */
  #reportMissing(): void {
    const last = this.#lastGood;
    if (last === undefined || this.#isMissing) return;
    this.#isMissing = true;
    this.#target.logger.warn(
      'ConfigMap deleted; its last config stays in force until it is back (nothing is reset or uninstalled)',
      { configMap: this.#target.id },
    );
    this.#target.absence?.missing(last);
  }

  /** Logs and counts an invalid state once, however often a relist shows it again. */
  #reportInvalid(error: unknown, configMap: JsonObject | undefined): void {
    const version = configMap ? resourceVersionOf(configMap) || undefined : undefined;
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

  #reportLost(failure: ListWatchFailure): void {
    const fields = {
      configMap: this.#target.id,
      status: failure.status || undefined,
      reason: errorMessage(failure.error),
    };
    if (failure.level === 'info') this.#target.logger.info('ConfigMap watch expired; listing again', fields);
    else this.#target.logger.error('ConfigMap watch failed; reconnecting with backoff', fields);
  }
}
