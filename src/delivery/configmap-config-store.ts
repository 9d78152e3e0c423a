import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { EMPTY_CONFIG_VALUES, parseConfigValues, type ConfigValues } from '../core/values.ts';
import { stringifyYaml } from '../core/yaml/yaml.ts';
import type { Logger } from '../observability/logger.ts';
import { KubeApiError } from './kube-client.ts';
import { backoffDelayMs, type Backoff } from '../core/backoff.ts';
import { sleep, systemClock, type Clock } from '../core/clock.ts';
import type { WatchApi } from './list-watch.ts';
import { ConfigMapWatch, type ConfigMapWatchOptions, type OnConfigChange } from './configmap-watch.ts';
import { ConfigMapRestorer, type ConfigMapReports } from './configmap-restorer.ts';

/** The part of KubeClient the store uses; tests wrap it to inject a concurrent writer. */
export type ConfigMapApi = WatchApi;

export interface ConfigMapStoreOptions {
  /** Where the watch reports invalid config and lost connections. */
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Writes after a 409 Conflict before saveSection gives up; default 8. */
  readonly conflictRetries?: number;
  /** The watch's reconnect backoff; default 500 ms doubling to 30 s, with jitter. */
  readonly backoff?: Backoff;
  /** Where a deleted ConfigMap is reported (Events, a gauge) while it is re-created. */
  readonly reports?: ConfigMapReports;
}

/** Re-reads after a conflict are quick: the other writer is usually done already. */
const CONFLICT_BACKOFF: Backoff = { initialMs: 20, maxMs: 500, jitter: true };

/** The config ConfigMap could not be written. */
class ConfigMapError extends KaddonError {
  readonly code = 'configmap-failed';
  constructor(configMap: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`ConfigMap '${configMap}': ${problem}.`, hint, options);
  }
}

/**
 * Config values in ConfigMap/addon-operator (docs/values.md "The ConfigMap"). Unlike
 * addon-operator, a save re-reads and re-applies its one key on 409 Conflict, so an edit someone else made
 * between our read and our write is kept, and a read error is reported, not ignored.
 */
export class ConfigMapConfigStore {
  readonly namespace: string;
  readonly name: string;
  readonly #api: ConfigMapApi;
  readonly #options: ConfigMapStoreOptions;
  #invalidConfigCount = 0;
  /** The watch, whose last good state a save into a deleted ConfigMap starts from. */
  #watch: ConfigMapWatch | undefined;

  constructor(api: ConfigMapApi, namespace: string, name: string, options: ConfigMapStoreOptions) {
    this.#api = api;
    this.namespace = namespace;
    this.name = name;
    this.#options = options;
  }

  /** `namespace/name`, as messages name the ConfigMap. */
  get id(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Changes the watch refused as invalid: exported as config_values_errors_total. */
  get invalidConfigCount(): number {
    return this.#invalidConfigCount;
  }

  /** The ConfigMap collection path; the watch lists it with a field selector on the name. */
  get collectionPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/configmaps`;
  }

  async load(): Promise<ConfigValues> {
    const configMap = await this.#get();
    return configMap ? this.parse(configMap) : EMPTY_CONFIG_VALUES;
  }

  /** A ConfigMap object's data as config values; throws ValuesError naming the ConfigMap and key. */
  parse(configMap: JsonObject | undefined): ConfigValues {
    return parseConfigValues(configMap?.data ?? null, `ConfigMap ${this.id}`);
  }

  /** Writes one key as a YAML string (as FileConfigStore does), keeping every other key. */
  async saveSection(key: string, section: JsonValue): Promise<void> {
    const text = stringifyYaml(section);
    const retries = this.#options.conflictRetries ?? 8;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#writeKey(key, text);
        return;
      } catch (error: unknown) {
        if (!(error instanceof KubeApiError && error.status === 409)) throw error;
        if (attempt >= retries)
          throw new ConfigMapError(
            this.id,
            `section '${key}' not saved: still conflicting after ${retries + 1} writes`,
            'Something rewrites the ConfigMap continuously; find the writer and stop it.',
            { cause: error },
          );
        const clock = this.#options.clock ?? systemClock;
        await sleep(
          clock,
          backoffDelayMs(attempt + 1, CONFLICT_BACKOFF, () => clock.random()),
        );
      }
    }
  }

  /**
   * Follows the ConfigMap (list, then watch) until stopped; see ConfigMapWatch for what is
   * reported and how it recovers from a lost connection. Deleted, it is re-created from the last
   * good state seen (ConfigMapRestorer).
   */
  watch(onChange: OnConfigChange, options: ConfigMapWatchOptions = {}): ConfigMapWatch {
    const restorer = new ConfigMapRestorer({
      api: this.#api,
      namespace: this.namespace,
      name: this.name,
      logger: this.#options.logger,
      ...(this.#options.reports ? { reports: this.#options.reports } : {}),
      ...(this.#options.clock ? { clock: this.#options.clock } : {}),
    });
    this.#watch = new ConfigMapWatch(
      {
        api: this.#api,
        collectionPath: this.collectionPath,
        name: this.name,
        id: this.id,
        parse: (configMap) => this.parse(configMap),
        countInvalid: () => {
          this.#invalidConfigCount++;
        },
        absence: {
          missing: (last) => {
            restorer.missing(last);
          },
          back: () => {
            restorer.back();
          },
          stop: () => {
            restorer.stop();
          },
        },
        ...this.#options,
      },
      onChange,
      options,
    );
    return this.#watch;
  }

  /** One read-modify-write: GET, set the key, PUT with the read resourceVersion (or POST). */
  async #writeKey(key: string, text: string): Promise<void> {
    const current = await this.#get();
    if (!current) {
      // Deleted while followed: the other keys are its last config, still in force, not nothing.
      const last = this.#watch?.lastGood;
      const kept = isJsonObject(last?.data) ? last.data : {};
      await this.#api.request('POST', this.collectionPath, {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: this.#metadata(),
          data: { ...kept, [key]: text },
        },
      });
      return;
    }
    const data = isJsonObject(current.data) ? current.data : {};
    if (data[key] === text) return;
    await this.#api.request('PUT', this.#objectPath(), {
      body: { ...current, data: { ...data, [key]: text } },
    });
  }

  async #get(): Promise<JsonObject | undefined> {
    try {
      return await this.#api.request('GET', this.#objectPath());
    } catch (error: unknown) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  #objectPath(): string {
    return `${this.collectionPath}/${encodeURIComponent(this.name)}`;
  }

  #metadata(): JsonObject {
    return { name: this.name, namespace: this.namespace };
  }
}
