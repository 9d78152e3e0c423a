import type { ApplyApi } from '../../delivery/drift/release-objects.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ConfigStore } from '../config-store.ts';
import type { ResId } from '../../core/res-id.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { ReleaseHelm } from '../../delivery/helm/recover-release.ts';
import type { ChartTemplater } from '../../delivery/helm/render-chart-module.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { ObjectPatcher } from './object-patcher.ts';
import type { ModulesTree } from '../../loader/modules-tree.ts';
import type { ConfigValues } from '../../core/values.ts';
import type { HookMetricsStore } from '../../observability/hook-metrics-store.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import type { ValuesStore } from '../values-store.ts';
import type { HookBindings } from './hook-bindings.ts';
import type { HookRegistry } from './hook-registry.ts';
import type { DeliveryPool } from './delivery-pool.ts';
import type { ModuleRunPool } from './module-run-pool.ts';
import type { ModulesTreeSource } from './modules-tree-source.ts';
import type { DeliveredHealth } from '../module-status/delivered-health.ts';
import type { ModuleStatusTracker } from '../module-status/module-status-tracker.ts';
import { ModuleStates } from './module-states.ts';
import { HookRuns } from './hook-runs.ts';
import type { ModuleControls } from './module-controls.ts';

/** What every operator step reads and calls; built once by `kaddon operator`. */
export interface OperatorContext {
  /** Replaced only by SwitchModulesTree, between two tasks of the main queue (GitOps). */
  tree: ModulesTree;
  readonly store: ValuesStore;
  readonly configStore: ConfigStore;
  readonly hooks: HookRegistry;
  /** Kubernetes and schedule bindings of the started hooks. */
  readonly bindings: HookBindings;
  readonly jq: JqEngine;
  readonly runDeps: HookRunDeps;
  readonly helm: ReleaseHelm & ChartTemplater;
  readonly logger: Logger;
  /** Built-in metrics (docs/observability.md "Metrics"). */
  readonly metrics: OperatorMetrics;
  /** Hooks' custom metrics from $METRICS_PATH. */
  readonly hookMetrics: HookMetricsStore;
  /** Replaced with the tree: `components/` beside a Git revision's modules. */
  sharedComponentRoots: readonly string[];
  /** ADDON_OPERATOR_NAMESPACE: where releases are stored. */
  readonly namespace: string;
  readonly helmTimeoutSeconds: number;
  /** KADDON_HOOK_TIMEOUT: a hook run that takes longer is stopped and fails. */
  readonly hookTimeoutMs?: number;
  readonly helmIgnoreRelease: string | undefined;
  /**
   * ModuleEnsureCRDs (docs/lifecycle.md "Helm delivery"): applies the CRDs of a module's crds/ folder with
   * ADDON_OPERATOR_CRD_EXTRA_LABELS, skipping ADDON_OPERATOR_CRD_FILTER_PREFIXES; the names applied.
   */
  readonly applyCrds: (crdsDir: string) => Promise<string[]>;
  /**
   * Release auto-healing (docs/lifecycle.md "Helm delivery"): told what each release holds, paused while its
   * module runs.
   */
  readonly resources?: ReleaseResources;
  /** Applies hooks' $KUBERNETES_PATCH_PATH operations (docs/hooks.md "Objects from hooks"). */
  readonly objectPatcher?: ObjectPatcher;
  readonly state: OperatorState;
  /**
   * Where helm deliveries run, overlapping up to KADDON_CONCURRENT_DELIVERIES (docs/lifecycle.md
   * "Overlapping delivery"); without it each delivery is awaited by its module's run.
   */
  readonly deliveries?: DeliveryPool;
  /**
   * Where ModuleRuns overlap, up to KADDON_CONCURRENT_MODULE_RUNS (docs/lifecycle.md "Parallel module
   * runs"), with KADDON_MODULE_FAILURE_POLICY=isolate; without it, or with `block`, the main queue
   * runs one module at a time.
   */
  readonly moduleRuns?: ModuleRunPool;
  /** Where new trees come from when the operator follows a Git repository (MODULES_GIT_URL). */
  readonly modulesSource?: ModulesTreeSource;
  /** KADDON_MODULE_FAILURE_POLICY (docs/lifecycle.md "Failure isolation"); `block` when not given. */
  readonly failurePolicy?: 'isolate' | 'block';
  /** Each module's state as a Ready condition: Module objects, Events, metrics (docs/module-status.md). */
  readonly status?: ModuleStatusTracker;
  /** Follows the health of what each module delivered (docs/module-status.md "Health"). */
  readonly health?: DeliveredHealth | undefined;
  /** The cluster, for `kaddon module diff` (docs/drift.md "The running operator's view"). */
  readonly liveApi?: ApplyApi;
  /** Maintenance and reconcile requests from the Module objects (docs/operations.md); none: status is off. */
  readonly controls?: ModuleControls;
  /** Holds mass uninstalls until confirmed (docs/lifecycle.md "Missing inputs and mass deletion"); none: off. */
  readonly pruneGuard?: PruneGuardSettings;
}

/** The prune guard's setting and where it reports (src/runtime/operator/prune-guard.ts). */
export interface PruneGuardSettings {
  /** KADDON_PRUNE_GUARD_PERCENT: a converge uninstalling this share of the releases or more is held; 100 is off. */
  readonly percent: number;
  /** The operator's ConfigMap (ADDON_OPERATOR_CONFIG_MAP): where a confirmation goes, what Events name. */
  readonly configMap: string;
  readonly recordEvent?: (event: { type: 'Normal' | 'Warning'; reason: string; note: string }) => void;
}

/** Uninstalls the prune guard holds, at a revision of the tree, and the id that confirms them. */
export interface PruneHold {
  readonly id: string;
  readonly revision: string;
  readonly releases: readonly string[];
}

/** What the operator tells the resource monitor (ResourceMonitor). */
interface ReleaseResources {
  delivered(
    module: string,
    objects: readonly ResId[],
    options?: { unchanged?: boolean; desired?: readonly JsonObject[]; revision?: number },
  ): void;
  forget(module: string): void;
  pause(module: string): void;
  resume(module: string): void;
  afterModuleHook(module: string): Promise<void>;
  /** Checks the module's objects and release now, as a tick does (a reconcile request). */
  checkNow(module: string): Promise<readonly string[]>;
}

/** What the operator knows between tasks. */
export interface OperatorState {
  /** Each module's record and the enabled modules (docs/lifecycle.md "Module states"). */
  readonly modules: ModuleStates;
  /** The latest valid ConfigMap config the watch reported; ApplyKubeConfigValues applies it. */
  pendingConfig: ConfigValues | undefined;
  /** Set once the first ConvergeModules is done (/readyz). */
  converged: boolean;
  /** Uninstalls held by the prune guard: candidates again at each converge until done. */
  pruneHold: PruneHold | undefined;
  /** A confirmed hold whose uninstalls are not all done yet: it covers them, and nothing else. */
  pruneConfirmed: PruneHold | undefined;
  /** The ConfigMap's kaddon.dev/allow-prune annotation as last seen. */
  allowPrune: string | undefined;
  /** The ConfigMap's reconcile.kaddon.dev/requestedAt annotation as last seen (docs/operations.md). */
  treeReconcileRequest: string | undefined;
  /** Each hook's last runs, for the status page (docs/ui.md). */
  readonly hookRuns: HookRuns;
}

export function initialOperatorState(): OperatorState {
  return {
    modules: new ModuleStates(),
    pendingConfig: undefined,
    converged: false,
    pruneHold: undefined,
    pruneConfirmed: undefined,
    allowPrune: undefined,
    treeReconcileRequest: undefined,
    hookRuns: new HookRuns(),
  };
}
