import type { JsonObject } from '../../core/json.ts';
import type { ApplyApi } from '../drift/release-objects.ts';
import type {
  HelmClient,
  ReleaseDetails,
  ReleaseRevision,
  ReleaseState,
  ReleaseStatus,
  UpgradeInstallOptions,
} from '../helm/helm-client.ts';
import type { ReleaseHelm } from '../helm/recover-release.ts';
import type { ChartTemplater } from '../helm/render-chart-module.ts';
import {
  applyTargets,
  takeOverClientSideOwnership,
  deleteTargets,
  NativeDeliveryError,
  releaseTargets,
  removedTargets,
  type ReleaseTarget,
} from './apply-release-objects.ts';
import { UNINSTALL_ORDER, sortByKind } from './helm-kind-order.ts';
import { currentRevision, isPending, revisionsToTrim } from './release-history.ts';
import type { InMemoryReleaseChart } from '../helm/release-chart.ts';
import { readReleaseChart, releaseChartOf, type ReleaseChartFiles } from './release-chart-files.ts';
import { isHelmHook, manifestObjects, releaseManifest } from './release-manifest.ts';
import { withStatus, type ReleaseRecord } from './release-record.ts';
import { ReleaseRecords } from './release-records.ts';
import { withoutHandedOver } from './object-handover.ts';
import { foreignRevisionReason } from './kaddon-revision.ts';
import { assertHelmCanStore } from './helm-record-size.ts';
import { RequestRateLimiter } from '../request-rate-limiter.ts';
import { errorMessage } from '../../core/errors.ts';
import { scalarText } from '../../core/json.ts';

/** How long a release read by `list` answers its module's next `release` (a converge's deliveries). */
const PREFETCH_TTL_MS = 60_000;

/**
 * client-go's default limits, which each helm process has to itself: a release's write starts with
 * a burst of 10 requests, then 5 a second (docs/delivery.md "Request limits").
 */
const RELEASE_WRITE_LIMIT = { qps: 5, burst: 10 } as const;

/** A write's own clients: its requests paced as one helm process paces its own. */
interface ReleaseWrite {
  readonly api: ApplyApi;
  readonly records: ReleaseRecords;
}

/** Where an upgrade's release chart comes from: read by the native engine, a directory for helm. */
interface ChartSource {
  read(now: Date): Promise<ReleaseChartFiles>;
  withDir<T>(use: (chartDir: string) => Promise<T>): Promise<T>;
}

/** KADDON_DELIVERY: who writes releases (docs/delivery.md). */
export type DeliveryEngine = 'helm' | 'native';

export interface ReleaseEngineOptions {
  readonly engine: DeliveryEngine;
  /** Reads of releases (the converge's list, a module's release): shared, rate-limited. */
  readonly api: ApplyApi;
  /**
   * Writes: each release written (install, upgrade, rollback, uninstall) paces its own requests as
   * one helm process does (RELEASE_WRITE_LIMIT), through this client; `api` when not given.
   */
  readonly writeApi?: ApplyApi;
  /** The helm binary: `helm template`, the `helm` engine's writes, and releases with Helm hooks. */
  readonly helm: Pick<HelmClient, 'upgradeInstall' | 'uninstall' | 'rollback' | 'template'>;
  /** HELM_HISTORY_MAX; default 10 as in addon-operator. */
  readonly historyMax?: number;
  /** Aborted when kaddon stops: no further object is applied and the revision is recorded failed. */
  readonly stopSignal?: AbortSignal;
  /** Told the first time a release goes through the helm binary because its objects hold Helm hooks. */
  readonly onHooks?: (release: string) => void;
  readonly now?: () => Date;
}

/**
 * The operator's releases (docs/delivery.md): read from helm's storage through the API with either
 * engine, so an unchanged module and a restart start no helm process; written by the helm binary
 * (`helm`) or by kaddon itself (`native`): server-side apply as field manager `helm` in helm's
 * order, and revisions in helm's storage format, so that helm's own commands keep working.
 */
export class ReleaseEngine implements ReleaseHelm, ChartTemplater {
  readonly #options: ReleaseEngineOptions;
  readonly #records: ReleaseRecords;
  readonly #hookReleases = new Set<string>();
  /**
   * The newest revision of each deployed release as the last `list` read it, by `namespace/name`:
   * the next `release` of it is answered from here once, within PREFETCH_TTL_MS, instead of a list
   * of its revisions (docs/delivery.md "Reading releases"). A write of the release drops it.
   */
  readonly #prefetched = new Map<string, { readonly record: ReleaseRecord; readonly at: number }>();
  /** Writes begun per release, and the releases being written now: a list under way keeps neither. */
  readonly #writes = new Map<string, number>();
  readonly #writing = new Set<string>();
  /**
   * Per namespace, when the last `list` was read and the releases it found with records but left
   * out (a revision label that is not a number). A caller's `knownAbsent` spares a release its
   * history's read only within PREFETCH_TTL_MS of that list, and never one of those.
   */
  readonly #lists = new Map<string, { readonly at: number; readonly unlisted: ReadonlySet<string> }>();

  constructor(options: ReleaseEngineOptions) {
    this.#options = options;
    this.#records = new ReleaseRecords(options.api);
  }

  async release(release: string, namespace: string): Promise<ReleaseDetails | undefined> {
    const key = `${namespace}/${release}`;
    const kept = this.#prefetched.get(key);
    this.#prefetched.delete(key);
    const last =
      kept !== undefined && this.#now().getTime() - kept.at < PREFETCH_TTL_MS
        ? kept.record
        : (await this.#records.history(release, namespace)).at(-1);
    if (last === undefined) return undefined;
    const foreign = foreignRevisionReason(last);
    return {
      status: last.info.status,
      revision: last.version,
      values: last.config,
      ...(foreign === undefined ? {} : { foreign }),
    };
  }

  async status(release: string, namespace: string): Promise<ReleaseStatus | undefined> {
    const head = (await this.#records.heads(namespace, release)).get(release);
    return head && { status: head.status as ReleaseState, revision: head.revision };
  }

  async history(release: string, namespace: string): Promise<ReleaseRevision[]> {
    return (await this.#records.history(release, namespace)).map((record) => ({
      revision: record.version,
      status: record.info.status,
      description: record.info.description,
    }));
  }

  /**
   * The releases of the namespace; also reads every deployed release whole, in the same breath, so
   * that a converge's deliveries over unchanged modules ask for nothing more.
   */
  async list(namespace: string): Promise<string[]> {
    const writesBefore = new Map(this.#writes);
    const named = new Set<string>();
    const [heads, deployed] = await Promise.all([
      this.#records.heads(namespace, undefined, named),
      this.#records.deployed(namespace),
    ]);
    for (const key of [...this.#prefetched.keys()])
      if (key.startsWith(`${namespace}/`)) this.#prefetched.delete(key);
    const at = this.#now().getTime();
    this.#lists.set(namespace, { at, unlisted: new Set([...named].filter((name) => !heads.has(name))) });
    for (const record of deployed) {
      const key = `${namespace}/${record.name}`;
      // Only a release whose newest revision is this deployed one, and that nobody wrote meanwhile.
      if (heads.get(record.name)?.revision !== record.version) continue;
      if (this.#writing.has(key) || this.#writes.get(key) !== writesBefore.get(key)) continue;
      this.#prefetched.set(key, { record, at });
    }
    return [...heads.keys()].sort();
  }

  template(release: string, namespace: string, chartDir: string, values: JsonObject): Promise<string> {
    return this.#options.helm.template(release, namespace, chartDir, values);
  }

  upgradeInstall(
    release: string,
    namespace: string,
    chartDir: string,
    options: UpgradeInstallOptions,
  ): Promise<number> {
    const source: ChartSource = {
      read: (now) => readReleaseChart(chartDir, now),
      withDir: (use) => use(chartDir),
    };
    return this.#writingRelease(release, namespace, (paced) =>
      this.#upgradeInstall(paced, release, namespace, source, options),
    );
  }

  /**
   * The same for a release chart held in memory: the native engine writes no chart files; the helm
   * binary (the `helm` engine, a release with Helm hooks) gets them in a temporary directory.
   */
  upgradeInstallChart(
    release: string,
    namespace: string,
    chart: InMemoryReleaseChart,
    options: UpgradeInstallOptions,
  ): Promise<number> {
    const source: ChartSource = {
      read: (now) => Promise.resolve(releaseChartOf(`release ${release}`, chart.texts, now)),
      withDir: (use) => chart.withDir(use),
    };
    return this.#writingRelease(release, namespace, (paced) =>
      this.#upgradeInstall(paced, release, namespace, source, options),
    );
  }

  rollback(release: string, namespace: string, revision: number, timeoutSeconds?: number): Promise<void> {
    return this.#writingRelease(release, namespace, (paced) =>
      this.#rollback(paced, release, namespace, revision, timeoutSeconds),
    );
  }

  /**
   * `helm uninstall`; with `handedOver`, the objects another release now holds are first dropped
   * from the revision the uninstall deletes (docs/delivery.md "Objects moving between modules").
   */
  uninstall(
    release: string,
    namespace: string,
    timeoutSeconds?: number,
    handedOver?: (object: JsonObject) => boolean,
  ): Promise<void> {
    return this.#writingRelease(release, namespace, async (paced) => {
      if (handedOver) await this.#handOverLast(paced, release, namespace, handedOver);
      await this.#uninstall(paced, release, namespace, timeoutSeconds);
    });
  }

  async #writingRelease<T>(
    release: string,
    namespace: string,
    write: (paced: ReleaseWrite) => Promise<T>,
  ): Promise<T> {
    const key = `${namespace}/${release}`;
    this.#prefetched.delete(key);
    this.#writes.set(key, (this.#writes.get(key) ?? 0) + 1);
    this.#writing.add(key);
    try {
      const api = pacedApi(this.#options.writeApi ?? this.#options.api);
      return await write({ api, records: new ReleaseRecords(api) });
    } finally {
      this.#writing.delete(key);
    }
  }

  async #upgradeInstall(
    paced: ReleaseWrite,
    release: string,
    namespace: string,
    source: ChartSource,
    options: UpgradeInstallOptions,
  ): Promise<number> {
    const binary = (): Promise<number> =>
      source.withDir((chartDir) => this.#options.helm.upgradeInstall(release, namespace, chartDir, options));
    // Read with either engine: a release whose records cannot be trusted is not upgraded
    // (docs/delivery.md "Release records"). One the converge's list just found without any record
    // (`knownAbsent`) has none to read; should another writer record it meanwhile, the pending
    // revision's create (revision 1) is refused as helm's own second writer would be.
    const listed = this.#lists.get(namespace);
    const absent =
      options.knownAbsent === true &&
      listed !== undefined &&
      this.#now().getTime() - listed.at < PREFETCH_TTL_MS &&
      !listed.unlisted.has(release);
    const history = absent ? [] : await paced.records.history(release, namespace);
    if (this.#options.engine === 'helm') {
      await this.#handOver(paced, history, options);
      return binary();
    }
    const now = this.#now();
    const chart = await source.read(now);
    const manifest = releaseManifest(chart.output, chart.source, `release ${release}`);
    if (manifest.objects.some(isHelmHook)) {
      this.#toldHooks(release);
      await this.#handOver(paced, history, options);
      return binary();
    }
    if (isPending(history))
      throw new NativeDeliveryError(release, 'another operation (install/upgrade/rollback) is in progress');
    const current = await this.#handOver(paced, history, options);
    // helm builds the resource list before it records the revision: a kind the server does not
    // serve fails the delivery with no revision written (docs/delivery.md "What the native engine does").
    const targets = await releaseTargets(paced.api, manifest.objects, release, namespace);
    const record: ReleaseRecord = {
      name: release,
      info: {
        first_deployed: current?.info.first_deployed ?? now.toISOString(),
        last_deployed: now.toISOString(),
        description: current ? 'Preparing upgrade' : 'Initial install underway',
        status: current ? 'pending-upgrade' : 'pending-install',
      },
      chart: chart.chart,
      config: options.values,
      manifest: manifest.text,
      version: (history.at(-1)?.version ?? 0) + 1,
      namespace,
      apply_method: 'ssa',
    };
    const last = history.at(-1);
    if (current === undefined && last?.info.status === 'uninstalled')
      // helm's `upgrade --install` installs over a release uninstalled with --keep-history, and
      // supersedes its newest revision first (docs/delivery.md "What the native engine does").
      await paced.records.update(withStatus(last, 'superseded', 'superseded by new release'), now);
    await this.#write(paced, record, history, new Date(record.info.first_deployed));
    const done = current ? 'Upgrade complete' : 'Install complete';
    const failed = current ? `Upgrade "${release}" failed` : `Release "${release}" failed`;
    await this.#deliver(paced, record, () => Promise.resolve(targets), current, {
      done,
      failed,
      supersede: current ? [current] : [],
      forceConflicts: options.forceConflicts === true,
    });
    return record.version;
  }

  async #rollback(
    paced: ReleaseWrite,
    release: string,
    namespace: string,
    revision: number,
    timeoutSeconds?: number,
  ): Promise<void> {
    const history = await paced.records.history(release, namespace);
    const target = history.find((record) => record.version === revision);
    const last = history.at(-1);
    if (this.#options.engine === 'helm' || (target && this.#hasHooks(target))) {
      await this.#options.helm.rollback(release, namespace, revision, timeoutSeconds);
      return;
    }
    if (!target || !last)
      throw new NativeDeliveryError(release, `release has no revision ${String(revision)}`);
    const now = this.#now();
    const record: ReleaseRecord = {
      ...target,
      info: {
        first_deployed: last.info.first_deployed,
        last_deployed: now.toISOString(),
        description: `Rollback to ${String(revision)}`,
        status: 'pending-rollback',
      },
      version: last.version + 1,
      // Written by server-side apply whatever the target revision was written by, as helm 4 records.
      apply_method: 'ssa',
    };
    await this.#write(paced, record, history, now);
    const objects = manifestObjects(target.manifest, `release ${release} revision ${String(revision)}`);
    const deployed = history.filter((entry) => entry.info.status === 'deployed');
    // helm's rollback builds its resource list after it records the revision: a failure is recorded.
    const targets = () => releaseTargets(paced.api, objects, release, namespace);
    await this.#deliver(paced, record, targets, last, {
      done: `Rollback to ${String(revision)}`,
      failed: `Rollback "${release}" failed`,
      supersede: deployed,
      // helm supersedes the revision it rolls back from only when the rollback fails; after a
      // success a pending revision (a killed writer's) stays as it was, and the deployed ones are
      // superseded (docs/lifecycle.md "Helm delivery": Stuck releases).
      supersedeOnFailure: [last],
    });
  }

  async #uninstall(
    paced: ReleaseWrite,
    release: string,
    namespace: string,
    timeoutSeconds?: number,
  ): Promise<void> {
    const history = await paced.records.history(release, namespace);
    const last = history.at(-1);
    if (this.#options.engine === 'helm' || (last && this.#hasHooks(last))) {
      await this.#options.helm.uninstall(release, namespace, timeoutSeconds);
      return;
    }
    if (!last) return;
    const now = this.#now();
    await paced.records.update(
      withStatus(last, 'uninstalling', 'Deletion in progress (or silently failed)'),
      now,
    );
    const objects = sortByKind(
      manifestObjects(last.manifest, `release ${release}`),
      (object) => scalarText(object.kind),
      UNINSTALL_ORDER,
    );
    const { api } = paced;
    await deleteTargets(api, release, await removedTargets(api, objects, [], release, namespace), namespace);
    for (const record of history) await paced.records.remove(release, namespace, record.version);
  }

  /**
   * Objects moving to another release in the same edit (docs/delivery.md "Objects moving between
   * modules"): dropped from the revision the upgrade goes on from, before the upgrade, so that it
   * deletes nothing another release now holds, whether that release was written before or after.
   * The revision the upgrade goes on from, as it now is.
   */
  async #handOver(
    paced: ReleaseWrite,
    history: readonly ReleaseRecord[],
    options: UpgradeInstallOptions,
  ): Promise<ReleaseRecord | undefined> {
    const current = isPending(history) ? undefined : currentRevision(history);
    if (current === undefined || options.handedOver === undefined) return current;
    const { record, dropped } = withoutHandedOver(current, options.handedOver);
    if (dropped > 0) await paced.records.update(record, this.#now());
    return record;
  }

  /** The newest revision without the objects another release now holds: what an uninstall deletes. */
  async #handOverLast(
    paced: ReleaseWrite,
    release: string,
    namespace: string,
    handedOver: (object: JsonObject) => boolean,
  ): Promise<void> {
    const last = (await paced.records.history(release, namespace)).at(-1);
    if (last === undefined) return;
    const { record, dropped } = withoutHandedOver(last, handedOver);
    if (dropped > 0) await paced.records.update(record, this.#now());
  }

  /**
   * Trims the history as HELM_HISTORY_MAX says, then records the pending revision, unless helm's
   * record of it would be over the Secret size limit.
   */
  async #write(
    paced: ReleaseWrite,
    record: ReleaseRecord,
    history: readonly ReleaseRecord[],
    modifiedAt: Date,
  ): Promise<void> {
    for (const old of revisionsToTrim(history, this.#options.historyMax ?? 10))
      await paced.records.remove(old.name, old.namespace, old.version);
    // helm's storage trims before it writes, and the API server then refuses a record over its
    // limit: the native engine refuses at the same point what helm could not store.
    assertHelmCanStore(record);
    await paced.records.create(record, modifiedAt);
  }

  /**
   * Applies the revision's objects (`targets` resolves them), deletes what `from` held and it does
   * not, then records the outcome: the revisions in `supersede` superseded and this one deployed, or
   * this one failed.
   */
  async #deliver(
    paced: ReleaseWrite,
    record: ReleaseRecord,
    targets: () => Promise<readonly ReleaseTarget[]>,
    from: ReleaseRecord | undefined,
    outcome: {
      done: string;
      failed: string;
      supersede: readonly ReleaseRecord[];
      supersedeOnFailure?: readonly ReleaseRecord[];
      forceConflicts?: boolean;
    },
  ): Promise<void> {
    const { api, records } = paced;
    const { name, namespace } = record;
    try {
      const resolved = await targets();
      // helm 4 moves a client-side applied release's ownership before its first server-side apply.
      if (from !== undefined && from.apply_method !== 'ssa')
        await takeOverClientSideOwnership(api, name, resolved, this.#options.stopSignal);
      await applyTargets(api, name, resolved, {
        upgrade: from !== undefined,
        stop: this.#options.stopSignal,
        force: outcome.forceConflicts === true,
      });
      const before = from ? manifestObjects(from.manifest, `release ${name}`) : [];
      await deleteTargets(api, name, await removedTargets(api, before, resolved, name, namespace), namespace);
    } catch (error: unknown) {
      for (const old of outcome.supersedeOnFailure ?? [])
        await records.update(withStatus(old, 'superseded', old.info.description), this.#now());
      const failed = withStatus(record, 'failed', `${outcome.failed}: ${errorMessage(error)}`);
      await records.update(failed, this.#now());
      throw error;
    }
    const now = this.#now();
    for (const old of outcome.supersede)
      await records.update(withStatus(old, 'superseded', old.info.description), now);
    await records.update(withStatus(record, 'deployed', outcome.done), now);
  }

  #hasHooks(record: ReleaseRecord): boolean {
    const hooks = (record as unknown as JsonObject).hooks;
    return Array.isArray(hooks) && hooks.length > 0;
  }

  #toldHooks(release: string): void {
    if (this.#hookReleases.has(release)) return;
    this.#hookReleases.add(release);
    this.#options.onHooks?.(release);
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }
}

/** The client with its requests paced by a limiter of its own (RELEASE_WRITE_LIMIT). */
function pacedApi(api: ApplyApi): ApplyApi {
  const limiter = new RequestRateLimiter(RELEASE_WRITE_LIMIT.qps, RELEASE_WRITE_LIMIT.burst);
  return {
    request: async (method, apiPath, options) => {
      await limiter.acquire(options?.signal);
      return api.request(method, apiPath, options);
    },
    resolveResource: (apiVersion, kind) => api.resolveResource(apiVersion, kind),
  };
}
