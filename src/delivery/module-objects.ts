import { backoffDelayMs, WATCH_BACKOFF } from '../core/backoff.ts';
import { settlesWithin, sleep, systemClock, type Clock } from '../core/clock.ts';
import { errorMessage } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Logger } from '../observability/logger.ts';
import { KubeApiError, type KubeClient } from './kube-client.ts';
import { MODULE_CRD, MODULE_CRD_NAME, MODULE_GROUP, MODULE_VERSION, MODULES_PATH } from './module-crd.ts';

export type ModuleObjectsApi = Pick<KubeClient, 'request'>;

/** Transient failures (429, 5xx, a lost connection) are retried: 0.5 s doubling to 30 s. */
const RETRY_BACKOFF = WATCH_BACKOFF;
const START_ATTEMPTS = 6;
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE_PATCH = 'application/merge-patch+json';

/**
 * The Module objects (docs/module-status.md "The Module object"): one per module of the tree,
 * created on first report, its status written through the status subresource, deleted with the
 * module. Writes are coalesced per module (the latest status wins, one request at a time). Where the
 * CRD is absent or RBAC forbids it at start, that is logged once and module status is off: the
 * operator carries on as addon-operator does. Lost later (the CRD deleted, RBAC changed), status is
 * never turned off: the CRD is created again when allowed, writes are retried with backoff, and once
 * the API takes them again every module's status is written anew (docs/module-status.md
 * "Recovery").
 */
export class ModuleObjects {
  readonly #api: ModuleObjectsApi;
  readonly #logger: Logger;
  readonly #pending = new Map<string, JsonObject | 'delete'>();
  readonly #uids = new Map<string, string>();
  readonly #clock: Clock;
  /** The last status of each module: what is written anew after the objects were lost. */
  readonly #latest = new Map<string, JsonObject>();
  #writing: Promise<void> | undefined;
  #off = false;
  #failures = 0;
  #manageCrd = false;
  /** Writes are refused since status worked: the CRD is gone or RBAC changed. */
  #lost = false;
  #cancelResync: (() => void) | undefined;

  constructor(api: ModuleObjectsApi, logger: Logger, clock: Clock = systemClock) {
    this.#api = api;
    this.#logger = logger;
    this.#clock = clock;
  }

  /** Whether status is being written (false once the API refused it). */
  get enabled(): boolean {
    return !this.#off;
  }

  /** The uid of a module's object, once written: Events name it. */
  uidOf(module: string): string | undefined {
    return this.#uids.get(module);
  }

  /**
   * Creates or updates the CRD when allowed (the one deploy/ ships may already be there), then
   * checks that Module objects can be listed; says once why status is off when not.
   */
  async start(options: { manageCrd: boolean; resyncMs?: number }): Promise<void> {
    this.#manageCrd = options.manageCrd;
    if (options.manageCrd) await this.#ensureCrd();
    // A CRD just created answers 429 or 503 while its storage initializes: a few tries.
    for (let attempt = 1; ; attempt++) {
      try {
        const list = await this.#api.request('GET', MODULES_PATH);
        for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : [])
          this.#remember(item);
        if (options.resyncMs !== undefined) this.#scheduleResync(options.resyncMs);
        return;
      } catch (error: unknown) {
        if (isRefusal(error) || attempt >= START_ATTEMPTS) {
          this.#turnOff(error);
          return;
        }
        await sleep(
          this.#clock,
          backoffDelayMs(attempt, RETRY_BACKOFF, () => this.#clock.random()),
        );
      }
    }
  }

  /** Names of the Module objects that exist (after start), for pruning those gone from the tree. */
  known(): string[] {
    return [...this.#uids.keys()];
  }

  publish(module: string, status: JsonObject): void {
    if (this.#off) return;
    this.#latest.set(module, status);
    this.#pending.set(module, status);
    this.#kick();
  }

  remove(module: string): void {
    if (this.#off) return;
    this.#latest.delete(module);
    this.#pending.set(module, 'delete');
    this.#kick();
  }

  /** Ends the periodic check for objects deleted behind kaddon's back. */
  stop(): void {
    this.#cancelResync?.();
    this.#cancelResync = undefined;
  }

  /**
   * Resolves when every write asked for so far is done; with `limitMs`, after that long at most:
   * the writes still queued then are dropped (a stop must end; the next operator writes every
   * module's status anew) and how many is logged.
   */
  async flush(limitMs?: number): Promise<void> {
    const drained = (async () => {
      while (this.#writing !== undefined) await this.#writing;
    })();
    if (limitMs === undefined) {
      await drained;
      return;
    }
    if (await settlesWithin(this.#clock, drained, limitMs)) return;
    const dropped = this.#pending.size;
    this.#pending.clear();
    this.#off = true;
    this.#logger.warn(
      'stopping: Module status writes not sent in time were dropped; the next start writes them',
      {
        dropped,
        limitMs,
      },
    );
  }

  #kick(): void {
    this.#writing ??= this.#drain().finally(() => {
      this.#writing = undefined;
      if (this.#pending.size > 0 && !this.#off && this.#failures === 0) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    for (const [module, write] of this.#pending) {
      this.#pending.delete(module);
      if (this.#off) return;
      try {
        if (this.#lost && this.#manageCrd) await this.#ensureCrd(true);
        if (write === 'delete') await this.#delete(module);
        else await this.#writeStatus(module, write);
        this.#failures = 0;
        if (this.#lost) this.#recovered();
      } catch (error: unknown) {
        if (isRefusal(error)) this.#reportLost(error);
        else
          this.#logger.error('module status not written; trying again', {
            module,
            error: errorMessage(error),
          });
        this.#retry(module, write);
        return;
      }
    }
  }

  /** Puts a failed write back, unless a newer one came meanwhile, and drains again after a pause. */
  #retry(module: string, write: JsonObject | 'delete'): void {
    if (!this.#pending.has(module)) this.#pending.set(module, write);
    this.#failures += 1;
    const delayMs = backoffDelayMs(this.#failures, RETRY_BACKOFF, () => this.#clock.random());
    this.#clock.setTimer(() => {
      this.#kick();
    }, delayMs);
  }

  /** Said once per loss: status is kept and written again as soon as the API takes it. */
  #reportLost(error: unknown): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#logger.warn(
      this.#manageCrd
        ? 'Module objects cannot be written (the Module CRD deleted?): creating the CRD again and retrying with backoff'
        : 'Module objects cannot be written (the Module CRD deleted?): retrying with backoff until it is back',
      { error: errorMessage(error) },
    );
  }

  /** Writes work again: every module's last status is written anew, the objects being gone. */
  #recovered(): void {
    this.#lost = false;
    this.#uids.clear();
    for (const [module, status] of this.#latest)
      if (!this.#pending.has(module)) this.#pending.set(module, status);
    this.#logger.info('Module objects are written again; every module status is published anew', {
      modules: this.#latest.size,
    });
  }

  /**
   * Every `everyMs`, the Module objects are listed: one deleted behind kaddon's back (the CRD
   * deleted and re-created by hand, an object deleted) is written again; a refused list starts the
   * recovery above.
   */
  #scheduleResync(everyMs: number): void {
    this.#cancelResync = this.#clock.setTimer(() => {
      void this.#resync().finally(() => {
        if (this.#cancelResync !== undefined) this.#scheduleResync(everyMs);
      });
    }, everyMs);
  }

  async #resync(): Promise<void> {
    let names: Set<string>;
    try {
      const list = await this.#api.request('GET', MODULES_PATH);
      names = new Set(
        (Array.isArray(list.items) ? list.items.filter(isJsonObject) : []).map((item) =>
          isJsonObject(item.metadata) && typeof item.metadata.name === 'string' ? item.metadata.name : '',
        ),
      );
    } catch (error: unknown) {
      if (!isRefusal(error)) return;
      this.#reportLost(error);
      if (this.#manageCrd) await this.#ensureCrd(true);
      names = new Set();
    }
    let missing = 0;
    for (const [module, status] of this.#latest)
      if (!names.has(module) && !this.#pending.has(module)) {
        this.#pending.set(module, status);
        missing += 1;
      }
    if (missing > 0 && this.#failures === 0) this.#kick();
  }

  async #writeStatus(module: string, status: JsonObject): Promise<void> {
    const path = `${MODULES_PATH}/${encodeURIComponent(module)}/status`;
    const patch = { body: { status }, contentType: MERGE_PATCH };
    // Not seen by the start's list nor written since: created first, not asked for and missed (one
    // request saved for each module of a first start).
    if (!this.#uids.has(module)) await this.#create(module);
    try {
      this.#remember(await this.#api.request('PATCH', path, patch));
    } catch (error: unknown) {
      // Not there yet: create it. A 404 from the create means the CRD is missing (status goes off).
      if (!(error instanceof KubeApiError) || error.status !== 404) throw error;
      await this.#create(module);
      this.#remember(await this.#api.request('PATCH', path, patch));
    }
  }

  async #create(module: string): Promise<void> {
    const body = {
      apiVersion: `${MODULE_GROUP}/${MODULE_VERSION}`,
      kind: 'Module',
      metadata: { name: module, labels: { 'app.kubernetes.io/managed-by': 'kaddon' } },
      spec: {},
    };
    try {
      this.#remember(await this.#api.request('POST', MODULES_PATH, { body }));
    } catch (error: unknown) {
      if (!(error instanceof KubeApiError && error.status === 409)) throw error;
    }
  }

  async #delete(module: string): Promise<void> {
    this.#uids.delete(module);
    try {
      await this.#api.request('DELETE', `${MODULES_PATH}/${encodeURIComponent(module)}`);
    } catch (error: unknown) {
      if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    }
  }

  async #ensureCrd(quiet = false): Promise<void> {
    try {
      const live = await this.#api
        .request('GET', `${CRD_PATH}/${MODULE_CRD_NAME}`)
        .catch((error: unknown) => {
          if (error instanceof KubeApiError && error.status === 404) return undefined;
          throw error;
        });
      if (live === undefined) await this.#api.request('POST', CRD_PATH, { body: MODULE_CRD });
      else {
        const metadata = isJsonObject(live.metadata) ? live.metadata : {};
        const body = {
          ...MODULE_CRD,
          metadata: { ...(MODULE_CRD.metadata as JsonObject), resourceVersion: metadata.resourceVersion },
        };
        await this.#api.request('PUT', `${CRD_PATH}/${MODULE_CRD_NAME}`, { body });
      }
      await this.#waitEstablished();
    } catch (error: unknown) {
      // Not allowed to manage CRDs: the one deploy/ installs may be there; start() finds out.
      const fields = { error: errorMessage(error) };
      if (quiet) this.#logger.debug('the Module CRD was not created or updated', fields);
      else this.#logger.info('the Module CRD was not created or updated', fields);
    }
  }

  async #waitEstablished(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const crd = await this.#api.request('GET', `${CRD_PATH}/${MODULE_CRD_NAME}`);
      const status = isJsonObject(crd.status) ? crd.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
      await sleep(this.#clock, 100);
    }
  }

  #remember(object: JsonObject): void {
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    if (typeof metadata.name === 'string' && typeof metadata.uid === 'string')
      this.#uids.set(metadata.name, metadata.uid);
  }

  #turnOff(error: unknown): void {
    if (this.#off) return;
    this.#off = true;
    this.#pending.clear();
    this.#logger.info(
      'module status is off: Module objects (kaddon.dev/v1alpha1) cannot be written; apply deploy/base/module-crd.yaml and grant the RBAC of `kaddon rbac` to have them',
      { error: errorMessage(error) },
    );
  }
}

function isRefusal(error: unknown): boolean {
  return error instanceof KubeApiError && (error.status === 403 || error.status === 404);
}
