import { errorMessage } from '../../core/errors.ts';
import { forEachLimited } from '../../core/for-each-limited.ts';
import type { JsonObject } from '../../core/json.ts';
import type { DriftCheck, DriftReport } from './drift-check.ts';
import { apiVersionOf, idOf, type ResId } from '../../core/res-id.ts';
import { KubeApiError, resourcePath, type KubeClient } from '../../delivery/kube-client.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { systemClock, type Clock } from '../../core/clock.ts';

/** The part of KubeClient the monitor uses: discovery and GET. */
export type MonitorApi = Pick<KubeClient, 'request' | 'resolveResource'>;

type ResourceMonitorMetrics = Pick<OperatorMetrics, 'absentResource' | 'helmReleaseRedeployed'>;

/**
 * addon-operator's first check of a tick (docs/lifecycle.md "Helm delivery"): a release not `deployed` is
 * redeployed too.
 */
interface ReleaseStatusCheck {
  /** The release's helm status and newest revision; undefined when the release is gone. */
  status(module: string): Promise<{ readonly status: string; readonly revision: number } | undefined>;
  onUnexpectedStatus(module: string, status: string | undefined): void;
}

export interface ResourceMonitorOptions {
  readonly api: MonitorApi;
  /** KADDON_RESOURCES_MONITOR_INTERVAL; each wait is longer by a random share of up to JITTER_SHARE. */
  readonly intervalMs: number;
  /** ADDON_OPERATOR_NAMESPACE: where helm puts a namespaced object that names no namespace. */
  readonly defaultNamespace: string;
  readonly logger: Logger;
  readonly metrics?: ResourceMonitorMetrics;
  /** Objects of the module's release are gone (`ns/Kind/name`); not said again for them until a delivery. */
  readonly onMissing: (module: string, ids: readonly string[]) => void;
  readonly release?: ReleaseStatusCheck;
  readonly clock?: Pick<Clock, 'setTimer'>;
  readonly random?: () => number;
  /**
   * KADDON_DRIFT_MODE correct or warn (docs/drift.md): the check compares each object with what was
   * delivered, and deleted objects are drift too (put back or reported, no module run).
   */
  readonly drift?: DriftCheck;
}

/**
 * addon-operator waits 4m30s plus a random 0–59 s between ticks (docs/lifecycle.md "Helm delivery"): the same
 * share of any interval.
 */
export const JITTER_SHARE = 60 / 270;

/** addon-operator lists at most 5 kinds at once; the monitor GETs at most 5 objects at once. */
const PROBE_CONCURRENCY = 5;

type ObjectState = 'present' | 'missing' | 'unknown';

interface Probe {
  readonly id: string;
  readonly state: ObjectState;
  readonly live?: JsonObject;
  readonly problem?: string;
}

interface ModuleWatch {
  objects: readonly ResId[];
  /** The delivered objects, in the order of `objects`; empty when not known. */
  desired: readonly JsonObject[];
  pauses: number;
  /** Bumped by whatever makes a check in flight stale: a pause, a hook, a delivery. */
  epoch: number;
  /** Bumped by a delivery that resets the records. */
  delivery: number;
  /**
   * Found missing right after a hook of the module: its own doing, not healed (docs/lifecycle.md "Helm
   * delivery").
   */
  readonly deletedByHooks: Set<string>;
  readonly reported: Set<string>;
  statusReported: boolean;
  /**
   * The release revision kaddon last wrote or found holding the slice: a newer or older one is a
   * revision written outside kaddon (docs/delivery.md "Revisions kaddon did not write").
   */
  revision: number | undefined;
}

/**
 * Release auto-healing (docs/lifecycle.md "Helm delivery"): checks that the objects of each module's last
 * delivered release still exist, and reports the ones deleted from the cluster, so that the module runs again
 * and `helm upgrade` recreates them. Objects a module's own hook deleted are not reported.
 */
export class ResourceMonitor {
  readonly #options: ResourceMonitorOptions;
  readonly #modules = new Map<string, ModuleWatch>();
  #running = false;
  #cancelTimer: (() => void) | undefined;
  #tick: Promise<void> = Promise.resolve();

  constructor(options: ResourceMonitorOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#arm();
  }

  /** Stops the ticks; resolves when a tick in flight has finished. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    await this.#tick;
  }

  /**
   * The module's release now holds `objects` (`Resource.id` of its slice). Unless helm left the
   * release as it was (`unchanged`), what hooks deleted and what was reported is forgotten:
   * helm upgrade has recreated it.
   */
  delivered(
    module: string,
    objects: readonly ResId[],
    options: { unchanged?: boolean; desired?: readonly JsonObject[]; revision?: number } = {},
  ): void {
    const watch = this.#watch(module);
    watch.objects = objects;
    watch.desired = options.desired ?? [];
    watch.revision = options.revision;
    watch.epoch++;
    this.#options.drift?.delivered(module, options);
    if (options.unchanged === true) return;
    watch.delivery++;
    watch.deletedByHooks.clear();
    watch.reported.clear();
    watch.statusReported = false;
  }

  /** The module is deleted: its release is no longer watched. */
  forget(module: string): void {
    this.#modules.delete(module);
    this.#options.drift?.forget(module);
  }

  /** Counted: a module is checked again once every pause has its resume. */
  pause(module: string): void {
    const watch = this.#watch(module);
    watch.pauses++;
    watch.epoch++;
  }

  resume(module: string): void {
    const watch = this.#modules.get(module);
    if (watch && watch.pauses > 0) watch.pauses--;
  }

  /** After a hook of the module: what is missing now was deleted by the module itself. */
  async afterModuleHook(module: string): Promise<void> {
    const watch = this.#modules.get(module);
    if (!watch || watch.objects.length === 0) return;
    watch.epoch++;
    const delivery = watch.delivery;
    const states = await this.#probe(module, watch.objects);
    if (this.#modules.get(module) !== watch || watch.delivery !== delivery) return;
    for (const [id, state] of states.byId) {
      if (state === 'missing') watch.deletedByHooks.add(id);
      if (state === 'present') watch.deletedByHooks.delete(id);
    }
  }

  /**
   * Checks the module as a tick does and returns the ids it reported; a paused module is not
   * checked. Only an exception thrown by onMissing or onUnexpectedStatus is passed on.
   */
  async checkNow(module: string): Promise<readonly string[]> {
    const missing = await this.#checkObjects(module);
    await this.#checkRelease(module);
    return missing;
  }

  /**
   * Checks one object of the module's release now (docs/drift.md "Found from watches"): a watch
   * saw fields the release sets change. Nothing when the module is paused, has no drift check, or
   * the object is not in its release. Returns what the drift check found.
   */
  async checkObject(module: string, changed: JsonObject): Promise<DriftReport | undefined> {
    const watch = this.#modules.get(module);
    const drift = this.#options.drift;
    if (!watch || !drift || watch.pauses > 0 || watch.desired.length !== watch.objects.length)
      return undefined;
    const index = watch.objects.findIndex((id) => this.#isObject(id, changed));
    const id = watch.objects[index];
    const desired = watch.desired[index];
    if (id === undefined || desired === undefined) return undefined;
    const epoch = watch.epoch;
    const probe = (await this.#probe(module, [id])).byIndex[0];
    if (probe === undefined || probe.state === 'unknown' || !this.#isCurrent(module, watch, epoch))
      return undefined;
    const healable = probe.state === 'missing' && !watch.deletedByHooks.has(probe.id);
    return drift.check(module, [{ desired, live: probe.live, healable }], () =>
      this.#isCurrent(module, watch, epoch),
    );
  }

  /** Whether a live object is the one of the release `id` names (helm's default namespace applied). */
  #isObject(id: ResId, live: JsonObject): boolean {
    const other = idOf(live);
    if (id.kind !== other.kind || id.group !== other.group || id.name !== other.name) return false;
    return (id.namespace || (other.namespace ? this.#options.defaultNamespace : '')) === other.namespace;
  }

  #arm(): void {
    const { intervalMs } = this.#options;
    const random = this.#options.random ?? Math.random;
    const delay = intervalMs + Math.floor(random() * intervalMs * JITTER_SHARE);
    const clock = this.#options.clock ?? systemClock;
    this.#cancelTimer = clock.setTimer(() => {
      this.#cancelTimer = undefined;
      this.#tick = this.#checkAll().finally(() => {
        // A stop and start during the tick has armed the next one already.
        if (this.#running && this.#cancelTimer === undefined) this.#arm();
      });
    }, delay);
  }

  async #checkAll(): Promise<void> {
    for (const module of [...this.#modules.keys()]) {
      if (!this.#running) return;
      try {
        await this.checkNow(module);
      } catch (error: unknown) {
        this.#options.logger.error('resource monitor: check failed', { module, error: errorMessage(error) });
      }
    }
  }

  async #checkObjects(module: string): Promise<string[]> {
    const watch = this.#modules.get(module);
    if (!watch || watch.pauses > 0 || watch.objects.length === 0) return [];
    const epoch = watch.epoch;
    const states = await this.#probe(module, watch.objects);
    if (!this.#isCurrent(module, watch, epoch)) return [];
    const drift = this.#options.drift;
    if (drift && watch.desired.length === watch.objects.length) {
      const items = watch.desired.map((desired, index) => {
        const probe = states.byIndex[index];
        return {
          desired,
          live: probe?.live,
          healable: probe?.state === 'missing' && !watch.deletedByHooks.has(probe.id),
        };
      });
      // An object not known to be there or gone (its GET failed) is left for the next check.
      const known = items.filter((item, index) => states.byIndex[index]?.state !== 'unknown');
      await drift.check(module, known, () => this.#isCurrent(module, watch, epoch));
      return [];
    }
    const fresh: string[] = [];
    for (const [id, state] of states.byId) {
      if (state === 'present') {
        watch.reported.delete(id);
        watch.deletedByHooks.delete(id);
      }
      if (state === 'missing' && !watch.deletedByHooks.has(id) && !watch.reported.has(id)) fresh.push(id);
    }
    if (fresh.length === 0) return [];
    fresh.sort();
    for (const id of fresh) {
      watch.reported.add(id);
      this.#options.metrics?.absentResource(module, id);
    }
    this.#options.logger.info('objects of the release were deleted: the module will run to recreate them', {
      module,
      resources: fresh.join(', '),
    });
    this.#options.onMissing(module, fresh);
    return fresh;
  }

  async #checkRelease(module: string): Promise<void> {
    const release = this.#options.release;
    const watch = this.#modules.get(module);
    if (!release || !watch || watch.pauses > 0 || watch.statusReported) return;
    if (watch.objects.length === 0 && watch.revision === undefined) return;
    const epoch = watch.epoch;
    let current: { readonly status: string; readonly revision: number } | undefined;
    try {
      current = await release.status(module);
    } catch (error: unknown) {
      this.#options.logger.error('resource monitor: release status unknown', {
        module,
        error: errorMessage(error),
      });
      return;
    }
    if (!this.#isCurrent(module, watch, epoch)) return;
    const status = current?.status;
    const ownRevision = watch.revision === undefined || current?.revision === watch.revision;
    if (status === 'deployed' && ownRevision) return;
    watch.statusReported = true;
    this.#options.metrics?.helmReleaseRedeployed(module);
    if (status === 'deployed')
      this.#options.logger.info(
        'the release has a revision kaddon did not write: the module will run to deliver the tree again',
        {
          module,
          revision: current?.revision,
          delivered: watch.revision,
        },
      );
    else
      this.#options.logger.info('the release is not deployed: the module will run to redeploy it', {
        module,
        status: status ?? 'absent',
      });
    release.onUnexpectedStatus(module, status);
  }

  #isCurrent(module: string, watch: ModuleWatch, epoch: number): boolean {
    return this.#modules.get(module) === watch && watch.epoch === epoch && watch.pauses === 0;
  }

  #watch(module: string): ModuleWatch {
    let watch = this.#modules.get(module);
    if (!watch) {
      watch = {
        objects: [],
        desired: [],
        pauses: 0,
        epoch: 0,
        delivery: 0,
        deletedByHooks: new Set(),
        reported: new Set(),
        statusReported: false,
        revision: undefined,
      };
      this.#modules.set(module, watch);
    }
    return watch;
  }

  /**
   * Each object's state by `ns/Kind/name`, and each probe in the order of `objects`; failures are logged
   * once per module, never fatal.
   */
  async #probe(
    module: string,
    objects: readonly ResId[],
  ): Promise<{ byId: Map<string, ObjectState>; byIndex: Probe[] }> {
    const byId = new Map<string, ObjectState>();
    const byIndex: Probe[] = [];
    const failures: string[] = [];
    await forEachLimited([...objects.keys()], PROBE_CONCURRENCY, async (index) => {
      const probe = await this.#probeObject(objects[index] as ResId);
      byId.set(probe.id, probe.state);
      byIndex[index] = probe;
      if (probe.problem !== undefined) failures.push(`${probe.id}: ${probe.problem}`);
    });
    if (failures.length > 0)
      this.#options.logger.error('resource monitor: objects could not be checked', {
        module,
        count: failures.length,
        first: failures[0],
      });
    return { byId, byIndex };
  }

  async #probeObject(object: ResId): Promise<Probe> {
    const { api, defaultNamespace } = this.#options;
    let resource;
    try {
      resource = await api.resolveResource(apiVersionOf(object), object.kind);
    } catch (error: unknown) {
      return { id: objectId(object.namespace, object), state: 'unknown', problem: errorMessage(error) };
    }
    const namespace = resource.namespaced ? object.namespace || defaultNamespace : '';
    const id = objectId(namespace, object);
    try {
      const live = await api.request('GET', resourcePath(resource, namespace, object.name));
      return { id, state: 'present', live };
    } catch (error: unknown) {
      if (error instanceof KubeApiError && error.status === 404) return { id, state: 'missing' };
      return { id, state: 'unknown', problem: errorMessage(error) };
    }
  }
}

/** `ns/Kind/name`, with an empty ns for cluster-scoped objects (docs/lifecycle.md "Helm delivery"). */
function objectId(namespace: string, object: ResId): string {
  return `${namespace}/${object.kind}/${object.name}`;
}
