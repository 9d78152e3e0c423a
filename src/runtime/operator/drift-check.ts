import { errorMessage } from '../../core/errors.ts';
import { forEachLimited } from '../../core/for-each-limited.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { resourceVersionOf } from '../../core/object-key.ts';
import { compareApplied, differingPaths, keepPointers } from '../../core/object-drift.ts';
import { Resource } from '../../core/resource.ts';
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
import { isSelected } from '../../pipeline/select-resources.ts';

/** The annotation that leaves one object out of drift detection. */
const DRIFT_ANNOTATION = 'kaddon.dev/drift';

export interface DriftOptions {
  /** KADDON_DRIFT_MODE (docs/drift.md): put drifted objects back, or only say so. */
  readonly mode: 'correct' | 'warn';
  readonly api: ApplyApi;
  /** ADDON_OPERATOR_NAMESPACE: the releases' namespace and the default of their objects. */
  readonly namespace: string;
  readonly logger: Logger;
  readonly metrics?: Pick<OperatorMetrics, 'driftedObjects' | 'driftCorrected'>;
  /** The module's `drift.ignore` rules from its module.yaml. */
  readonly ignoreRules: (module: string) => readonly DriftIgnoreRule[];
  /** Told of every check that found drift: for the module's status and an Event. */
  readonly onDrift: (module: string, report: DriftReport) => void;
}

/** What one check of a module found. */
export interface DriftReport {
  /** `Deployment demo/web: /spec/replicas` or `ConfigMap demo/settings: deleted`, sorted. */
  readonly objects: readonly string[];
  readonly corrected: boolean;
}

/** One object of the release as the check sees it. */
export interface DriftItem {
  readonly desired: JsonObject;
  /** Undefined when the object is gone. */
  readonly live: JsonObject | undefined;
  /** False for an object the module's own hook deleted: not drift. */
  readonly healable: boolean;
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
  /** Per module: what was last reported, so that `warn` says a standing drift once. */
  readonly #reported = new Map<string, string>();

  constructor(options: DriftOptions) {
    this.#options = options;
  }

  /**
   * A delivery: nothing is known in sync any more, and nothing has drifted yet. One that left the
   * release as it was (`unchanged`) keeps what is known, once the module has a count.
   */
  delivered(module: string, options: { unchanged?: boolean } = {}): void {
    if (options.unchanged === true && this.#inSync.has(module)) return;
    this.#inSync.set(module, new Map());
    this.#reported.delete(module);
    this.#options.metrics?.driftedObjects(module, 0);
  }

  forget(module: string): void {
    this.#inSync.delete(module);
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
    const drifted: { label: string; target: ObjectTarget; desired: JsonObject }[] = [];
    await forEachLimited(items, CONCURRENCY, async (item) => {
      const found = await this.#compare(module, item, rules, inSync, isCurrent);
      if (found) drifted.push(found);
    });
    drifted.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    const report: DriftReport = {
      objects: drifted.map((entry) => entry.label),
      corrected: this.#options.mode === 'correct',
    };
    if (!isCurrent()) return { objects: [], corrected: false };
    this.#options.metrics?.driftedObjects(module, drifted.length);
    if (drifted.length === 0) {
      this.#reported.delete(module);
      return report;
    }
    if (this.#options.mode === 'correct') {
      await forEachLimited(drifted, CONCURRENCY, async ({ target, desired }) => {
        if (!isCurrent()) return;
        const applied = await serverApply(this.#options.api, target, desired, { dryRun: false });
        inSync.set(targetKey(target), resourceVersionOf(applied));
      });
      this.#options.metrics?.driftCorrected(module, drifted.length);
    }
    const said = report.objects.join('\n');
    if (this.#options.mode === 'correct' || this.#reported.get(module) !== said) {
      this.#reported.set(module, said);
      this.#options.logger.info(
        this.#options.mode === 'correct'
          ? 'objects of the release were changed outside kaddon: put back as delivered'
          : 'objects of the release were changed outside kaddon (KADDON_DRIFT_MODE=warn: left as they are)',
        { module, objects: report.objects.join('; ') },
      );
      this.#options.onDrift(module, report);
    }
    return report;
  }

  async #compare(
    module: string,
    item: DriftItem,
    rules: readonly DriftIgnoreRule[],
    inSync: Map<string, string>,
    isCurrent: () => boolean,
  ): Promise<{ label: string; target: ObjectTarget; desired: JsonObject } | undefined> {
    const { api, namespace } = this.#options;
    if (ignoredByAnnotation(item.desired) || (item.live && ignoredByAnnotation(item.live))) return undefined;
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
      return item.healable ? { label: `${target.label}: deleted`, target, desired } : undefined;
    }
    const version = resourceVersionOf(item.live);
    if (inSync.get(key) === version) return undefined;
    const paths = ignoredPaths(item.desired, rules);
    const applied = await serverApply(api, target, desired, { dryRun: true });
    const comparison = compareApplied(item.live, applied, { ignorePaths: paths });
    if (!comparison.changed) {
      inSync.set(key, version);
      return undefined;
    }
    inSync.delete(key);
    // The correction applies ignored fields as they are live, so that it never changes them.
    keepPointers(desired, item.live, paths);
    return {
      label: `${target.label}: ${differingPaths(comparison.before, comparison.after).join(', ')}`,
      target,
      desired,
    };
  }
}

function ignoredByAnnotation(object: JsonObject): boolean {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return isJsonObject(metadata.annotations) && metadata.annotations[DRIFT_ANNOTATION] === 'ignore';
}

/** The pointers of every rule whose target selects the object (a rule without one selects all). */
function ignoredPaths(object: JsonObject, rules: readonly DriftIgnoreRule[]): string[] {
  if (rules.length === 0) return [];
  const resource = new Resource(object, 'module.yaml');
  return rules.flatMap((rule) =>
    rule.target === undefined || isSelected(resource, rule.target) ? rule.paths : [],
  );
}
