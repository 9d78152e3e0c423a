import { systemClock, type Clock } from '../../core/clock.ts';
import { errorMessage } from '../../core/errors.ts';
import { forEachLimited } from '../../core/for-each-limited.ts';
import { type JsonObject } from '../../core/json.ts';
import { resourceVersionOf } from '../../core/object-key.ts';
import { compareApplied, differingPaths, keepPointers } from '../../core/object-drift.ts';
import {
  objectTarget,
  releaseObject,
  serverApply,
  targetKey,
  type ApplyApi,
  type ObjectTarget,
} from '../../delivery/drift/release-objects.ts';
import type { DriftIgnoreRule } from '../../loader/module-manifest.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { driftIgnoreOf } from '../drift-ignore.ts';
import { CorrectionBackoff, type CorrectionBackoffTiming } from './correction-backoff.ts';

/** The annotation that leaves one object out of drift detection. */

export interface DriftOptions {
  /** KADDON_DRIFT_MODE (docs/drift.md): put drifted objects back, or only say so. */
  readonly mode: 'correct' | 'warn';
  readonly api: ApplyApi;
  /** ADDON_OPERATOR_NAMESPACE: the releases' namespace and the default of their objects. */
  readonly namespace: string;
  readonly logger: Logger;
  readonly metrics?: Pick<OperatorMetrics, 'driftedObjects' | 'driftCorrected' | 'driftBackoff'>;
  /** The module's `drift.ignore` rules from its module.yaml. */
  readonly ignoreRules: (module: string) => readonly DriftIgnoreRule[];
  /** Told of every check that found drift: for the module's status and an Event. */
  readonly onDrift: (module: string, report: DriftReport) => void;
  /** Told when a check finds no object drifted any more where one was: the Module is Ready again. */
  readonly onInSync?: (module: string) => void;
  /**
   * Told once per fight (docs/drift.md "Another writer"): `object` (`Deployment demo/web:
   * /spec/replicas`) keeps being changed back, and its corrections are spaced out.
   */
  readonly onBackoff?: (module: string, object: string, delayMs: number) => void;
  readonly clock?: Pick<Clock, 'now'>;
  readonly backoff?: CorrectionBackoffTiming;
}

/** What one check of a module found. */
export interface DriftReport {
  /** `Deployment demo/web: /spec/replicas` or `ConfigMap demo/settings: deleted`, sorted. */
  readonly objects: readonly string[];
  readonly corrected: boolean;
  /**
   * Drifted objects left for now because another writer keeps changing them back: the soonest
   * they may be corrected, in milliseconds.
   */
  readonly retryInMs?: number;
}

/** One object of the release as the check sees it. */
export interface DriftItem {
  readonly desired: JsonObject;
  /** Undefined when the object is gone. */
  readonly live: JsonObject | undefined;
  /** False for an object the module's own hook deleted: not drift. */
  readonly healable: boolean;
}

/** A drifted object: its key (targetKey), how messages name it, and what puts it back. */
interface Drifted {
  readonly key: string;
  readonly label: string;
  readonly target: ObjectTarget;
  readonly desired: JsonObject;
}

/** One object as a check found it: drifted, or (no `drifted`) in sync or not drift. */
interface Compared {
  readonly key: string;
  readonly drifted?: Drifted;
}

function byLabel(a: Drifted, b: Drifted): number {
  return a.label < b.label ? -1 : a.label > b.label ? 1 : 0;
}

/** Dry runs and corrections at once per module. */
const CONCURRENCY = 5;

/**
 * Drift detection and correction (docs/drift.md): each object of a delivered release is compared with
 * what helm's server-side apply would make of it, on the fields the release sets. An object whose
 * resourceVersion is the one last found in sync costs nothing; a drifted one is applied again as helm's
 * field manager (no new Helm revision), or only reported in `warn` mode.
 */
export class DriftCheck {
  readonly #options: DriftOptions;
  /** Per module: object key → the resourceVersion last found in sync. */
  readonly #inSync = new Map<string, Map<string, string>>();
  /** Per module: object key → how the last check that saw it drifted named it. */
  readonly #drifted = new Map<string, Map<string, string>>();
  /** Per module: what was last reported, so that `warn` says a standing drift once. */
  readonly #reported = new Map<string, string>();

  readonly #backoff: CorrectionBackoff;

  constructor(options: DriftOptions) {
    this.#options = options;
    this.#backoff = new CorrectionBackoff(options.clock ?? systemClock, options.backoff);
  }

  /**
   * A delivery: nothing is known in sync any more, and nothing has drifted yet. One that left the
   * release as it was (`unchanged`) keeps what is known, once the module has a count.
   */
  delivered(module: string, options: { unchanged?: boolean } = {}): void {
    if (options.unchanged === true && this.#inSync.has(module)) return;
    this.#inSync.set(module, new Map());
    this.#backoff.forget(`${module}\0`);
    this.#drifted.delete(module);
    this.#reported.delete(module);
    this.#options.metrics?.driftedObjects(module, 0);
  }

  forget(module: string): void {
    this.#inSync.delete(module);
    this.#backoff.forget(`${module}\0`);
    this.#drifted.delete(module);
    this.#reported.delete(module);
    this.#options.metrics?.driftedObjects(module, undefined);
  }

  /**
   * Checks the module's objects; `isCurrent` turning false (a run or delivery began) stops it before a
   * correction. Returns what drifted.
   */
  async check(module: string, items: readonly DriftItem[], isCurrent: () => boolean): Promise<DriftReport> {
    const inSync = this.#inSync.get(module) ?? new Map<string, string>();
    this.#inSync.set(module, inSync);
    const rules = this.#options.ignoreRules(module);
    const found: Compared[] = [];
    await forEachLimited(items, CONCURRENCY, async (item) => {
      const compared = await this.#compare(module, item, rules, inSync, isCurrent);
      if (compared) found.push(compared);
    });
    const correct = this.#options.mode === 'correct';
    if (!isCurrent()) return { objects: [], corrected: false };
    // A check of some objects (a watch event's) updates what is known of them only.
    const standing = this.#drifted.get(module) ?? new Map<string, string>();
    const wasDrifted = standing.size > 0;
    this.#drifted.set(module, standing);
    for (const { key, drifted } of found)
      if (drifted) standing.set(key, drifted.label);
      else standing.delete(key);
    this.#options.metrics?.driftedObjects(module, standing.size);
    if (standing.size === 0) this.#reported.delete(module);
    if (standing.size === 0 && wasDrifted) this.#options.onInSync?.(module);
    const drifted = found.flatMap((entry) => (entry.drifted ? [entry.drifted] : [])).sort(byLabel);
    // Objects another writer keeps changing back wait their turn (docs/drift.md "Another writer").
    const waits = drifted.map((entry) => (correct ? this.#backoff.waitMs(`${module}\0${entry.key}`) : 0));
    const due = drifted.filter((_, index) => waits[index] === 0);
    const deferred = waits.filter((wait) => wait > 0);
    const report: DriftReport = {
      objects: due.map((entry) => entry.label),
      corrected: correct,
      ...(deferred.length > 0 ? { retryInMs: Math.min(...deferred) } : {}),
    };
    if (due.length === 0) return report;
    if (correct) await this.#correct(module, due, inSync, isCurrent);
    // `warn` says a standing drift once: the module's drifted objects, whichever check found them.
    const said = correct ? '' : [...standing.values()].sort().join('\n');
    if (correct || this.#reported.get(module) !== said) {
      if (!correct) this.#reported.set(module, said);
      this.#options.logger.info(
        correct
          ? 'objects of the release were changed outside kaddon: put back as delivered'
          : 'objects of the release were changed outside kaddon (KADDON_DRIFT_MODE=warn: left as they are)',
        { module, objects: report.objects.join('; ') },
      );
      this.#options.onDrift(module, report);
    }
    return report;
  }

  async #correct(
    module: string,
    due: readonly Drifted[],
    inSync: Map<string, string>,
    isCurrent: () => boolean,
  ): Promise<void> {
    let corrected = 0;
    await forEachLimited(due, CONCURRENCY, async ({ key, label, target, desired }) => {
      if (!isCurrent()) return;
      const applied = await serverApply(this.#options.api, target, desired, { dryRun: false });
      inSync.set(key, resourceVersionOf(applied));
      corrected++;
      const outcome = this.#backoff.corrected(`${module}\0${key}`);
      if (!outcome.startsBackoff) return;
      this.#options.metrics?.driftBackoff(module);
      this.#options.logger.info(
        'another writer keeps changing an object back: its corrections are spaced out',
        {
          module,
          object: label,
          nextInSeconds: Math.round(outcome.delayMs / 1000),
        },
      );
      this.#options.onBackoff?.(module, label, outcome.delayMs);
    });
    this.#options.metrics?.driftCorrected(module, corrected);
  }

  async #compare(
    module: string,
    item: DriftItem,
    rules: readonly DriftIgnoreRule[],
    inSync: Map<string, string>,
    isCurrent: () => boolean,
  ): Promise<Compared | undefined> {
    const { api, namespace } = this.#options;
    const ignore = driftIgnoreOf(item.desired, item.live, rules);
    if (ignore.skip) return undefined;
    const desired = releaseObject(item.desired, module, namespace);
    let target: ObjectTarget | undefined;
    try {
      target = await objectTarget(api, desired, namespace);
    } catch (error: unknown) {
      this.#options.logger.error('drift check: kind not resolved', { module, error: errorMessage(error) });
      return undefined;
    }
    if (target === undefined || !isCurrent()) return undefined;
    const key = targetKey(target);
    if (item.live === undefined) {
      inSync.delete(key);
      return item.healable
        ? { key, drifted: { key, label: `${target.label}: deleted`, target, desired } }
        : { key };
    }
    const version = resourceVersionOf(item.live);
    if (inSync.get(key) === version) return { key };
    const paths = [...ignore.paths];
    const applied = await serverApply(api, target, desired, { dryRun: true });
    const comparison = compareApplied(item.live, applied, { ignorePaths: paths });
    if (!comparison.changed) {
      inSync.set(key, version);
      return { key };
    }
    inSync.delete(key);
    // The correction applies ignored fields as they are live, so that it never changes them.
    keepPointers(desired, item.live, paths);
    const label = `${target.label}: ${differingPaths(comparison.before, comparison.after).join(', ')}`;
    return { key, drifted: { key, label, target, desired } };
  }
}
