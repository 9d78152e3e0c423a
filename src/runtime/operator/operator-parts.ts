import { errorMessage } from '../../core/errors.ts';
import type { SecretMask } from '../../core/secret-mask.ts';
import type { ConfigMapConfigStore } from '../../delivery/configmap-config-store.ts';
import type { EventRecorder } from '../../delivery/event-recorder.ts';
import { applyCrds } from '../../delivery/helm/apply-crds.ts';
import type { KubeClient } from '../../delivery/kube-client.ts';
import type { ResourceEvent } from '../../delivery/reconcile-list.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { DriftIgnoreRule } from '../../loader/module-manifest.ts';
import type { HookMetricsStore } from '../../observability/hook-metrics-store.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { ModuleEventLog } from '../module-status/module-event-log.ts';
import { startModuleStatus, type ModuleStatusService } from '../module-status/module-status-service.ts';
import type { ValuesStore } from '../values-store.ts';
import { DeliveryPool } from './delivery-pool.ts';
import { DriftCheck } from './drift-check.ts';
import { DriftTrigger } from './drift-trigger.ts';
import { ModuleControls } from './module-controls.ts';
import { startNotifications } from './operator-notifications.ts';
import { ModuleNotifications } from '../module-status/module-notifications.ts';
import type { Notifier } from '../../observability/notifications/notifier.ts';
import { systemClock } from '../../core/clock.ts';
import { HookBindings } from './hook-bindings.ts';
import { HookRegistry } from './hook-registry.ts';
import { ModuleRunPool } from './module-run-pool.ts';
import { ObjectPatcher } from './object-patcher.ts';
import { initialOperatorState, type OperatorContext } from './operator-context.ts';
import type { OperatorGitSource } from './operator-git-source.ts';
import { countBindings, onConverged, type Readiness } from './operator-lifecycle.ts';
import { Operator } from './operator.ts';
import type { PreparedTree } from './prepare-modules-tree.ts';
import { ResourceMonitor } from './resource-monitor.ts';

/** What every part of the operator shares: logs, metrics, the cluster, jq and how hooks run. */
export interface OperatorBase {
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  readonly hookMetrics: HookMetricsStore;
  /** A client with its own rate limit (and request timeout). */
  readonly client: (qps: number, burst: number, timeoutMs?: number) => KubeClient;
  readonly kube: KubeClient;
  readonly jq: JqEngine;
  readonly runDeps: HookRunDeps;
  /** Aborted when SIGTERM's grace period ends: running hooks have their process groups ended. */
  readonly hooksStop: AbortController;
  /** Values masked wherever text leaves the process (docs/hooks.md "What of a hook's output leaves the operator"). */
  readonly secrets: SecretMask;
}

/** The settings the operator's parts are built with; the names are OperatorConfig's (the README's settings table). */
export interface OperatorPartsSettings {
  readonly namespace: string;
  readonly configMapName: string;
  readonly haIdentity: string;
  readonly driftMode: 'correct' | 'warn' | 'off';
  readonly driftIntervalMs: number;
  readonly resourcesMonitorIntervalMs: number;
  readonly monitorKubeClientQps: number;
  readonly monitorKubeClientBurst: number;
  readonly objectPatcherQps: number;
  readonly objectPatcherBurst: number;
  readonly objectPatcherTimeoutMs: number;
  readonly healthTimeoutMs: number;
  readonly moduleStatus: boolean;
  readonly helmTimeoutSeconds: number;
  readonly hookTimeoutMs: number;
  readonly helmIgnoreRelease: string;
  readonly crdExtraLabels: Readonly<Record<string, string>>;
  readonly crdFilterPrefixes: readonly string[];
  readonly concurrentDeliveries: number;
  readonly concurrentModuleRuns: number;
  readonly moduleFailurePolicy: 'isolate' | 'block';
  readonly pruneGuardPercent: number;
  readonly notificationsConfigMap: string;
  readonly notificationsSecret: string;
}

/** The modules tree the operator starts with: from Git's first good revision or from disk. */
export type OperatorTree = Pick<PreparedTree, 'tree' | 'schemas' | 'globalHooksDir' | 'sharedComponentRoots'>;

/** What the start sequence has ready when the operator's parts are built. */
export interface OperatorInputs {
  readonly first: OperatorTree;
  readonly store: ValuesStore;
  readonly configMap: ConfigMapConfigStore;
  readonly initialConfig: Awaited<ReturnType<ConfigMapConfigStore['load']>>;
  readonly git: OperatorGitSource | undefined;
  /** Releases are read and delivered through it (KADDON_DELIVERY, docs/delivery.md). */
  readonly helm: OperatorContext['helm'];
  /** `/readyz`: ready after the first convergence. */
  readonly readiness: Readiness;
  readonly startedAt: number;
  /** Events about the operator's own inputs, in its namespace. */
  readonly events: EventRecorder;
}

/** The operator and what runs beside it; built, not started (module status excepted: it is). */
export interface OperatorParts {
  readonly operator: Operator;
  readonly resources: ResourceMonitor;
  readonly driftTrigger: DriftTrigger | undefined;
  readonly moduleStatus: ModuleStatusService;
  readonly eventLog: ModuleEventLog;
  /** Notifications (docs/notifications.md); none without their routing ConfigMap. */
  readonly notifier: Notifier | undefined;
}

/**
 * The Module objects' and Events' own client limit (docs/module-status.md "Writes"): the limits
 * Flux's controllers default to. At client-go's 5/s, the status of 1,000 modules took minutes to
 * write after the first convergence, and a stop waited for it.
 */
const MODULE_STATUS_QPS = 50;
/** The longest a start holds failures back for its notification summary. */
const SUMMARY_WAIT_MS = 180_000;
const MODULE_STATUS_BURST = 100;

/**
 * Builds the operator from its parts: the resource monitor with release auto-healing (docs/lifecycle.md
 * "Helm delivery") and the drift check (docs/drift.md), the module status (docs/module-status.md),
 * whose watches start here, and the Operator itself.
 */
export async function wireOperatorParts(
  settings: OperatorPartsSettings,
  base: OperatorBase,
  inputs: OperatorInputs,
): Promise<OperatorParts> {
  const { logger, metrics, client, kube, secrets } = base;
  const { helm } = inputs;
  // Release auto-healing (docs/lifecycle.md "Helm delivery"): a module whose objects were deleted runs again.
  const monitorApi = client(settings.monitorKubeClientQps, settings.monitorKubeClientBurst);
  const drift: DriftCheck | undefined =
    settings.driftMode === 'off'
      ? undefined
      : new DriftCheck({
          mode: settings.driftMode,
          api: monitorApi,
          namespace: settings.namespace,
          logger,
          metrics,
          ignoreRules: (module): readonly DriftIgnoreRule[] =>
            operator.moduleDefinition(module)?.driftIgnore ?? [],
          onDrift: (module, report) => {
            moduleStatus.tracker.drifted(module, report);
          },
          onInSync: (module) => {
            moduleStatus.tracker.inSync(module);
          },
          onBackoff: (module, object, delayMs) => {
            moduleStatus.tracker.driftBackoff(module, object, delayMs);
          },
        });
  const resources = new ResourceMonitor({
    api: monitorApi,
    intervalMs: drift ? settings.driftIntervalMs : settings.resourcesMonitorIntervalMs,
    ...(drift ? { drift } : {}),
    defaultNamespace: settings.namespace,
    logger,
    metrics,
    onMissing: (module) => {
      operator.healModule(module);
    },
    release: {
      status: (module) => helm.status(module, settings.namespace),
      onUnexpectedStatus: (module) => {
        operator.healModule(module);
      },
    },
  });
  const eventLog = new ModuleEventLog({ mask: (text) => secrets.mask(text) });
  // Drift found from the delivered-object watches within seconds; the periodic check stays (docs/drift.md).
  const driftTrigger = drift
    ? new DriftTrigger({ check: (module, object) => resources.checkObject(module, object), logger })
    : undefined;
  const notifier = await startNotifications(
    kube,
    {
      namespace: settings.namespace,
      configMap: settings.notificationsConfigMap,
      secret: settings.notificationsSecret,
    },
    logger,
    metrics,
  );
  const notifications = notifier
    ? new ModuleNotifications(notifier, () => inputs.git?.status().revisionInUse)
    : undefined;
  const moduleStatus = await startModuleStatus({
    ...(driftTrigger
      ? {
          onObjectEvent: (module: string, event: ResourceEvent) => {
            driftTrigger.changed(module, event);
          },
          onForget: (module: string) => {
            driftTrigger.forget(module);
          },
        }
      : {}),
    api: kube,
    writeApi: client(MODULE_STATUS_QPS, MODULE_STATUS_BURST),
    logger,
    metrics,
    namespace: settings.namespace,
    // A module's own health timeout (module.yaml), else KADDON_HEALTH_TIMEOUT's.
    healthTimeoutMs: (module) =>
      operator.moduleDefinition(module)?.healthTimeoutMs ?? settings.healthTimeoutMs,
    instance: `kaddon-${settings.haIdentity}`,
    enabled: settings.moduleStatus,
    listeners: [eventLog, ...(notifications ? [notifications] : [])],
    mask: (text) => secrets.mask(text),
  });
  const controls = new ModuleControls(systemClock);
  // After the first convergence, one summary of what changed while no operator ran; at the latest
  // SUMMARY_WAIT_MS after the start, so that a start that never converges (a failing global hook,
  // KADDON_MODULE_FAILURE_POLICY=block) is still announced (docs/notifications.md "Restarts").
  let summarized = false;
  const converged = (): void => {
    if (summarized || notifier === undefined || notifications === undefined) return;
    summarized = true;
    void notifier.restored(notifications.conditions());
  };
  if (notifier !== undefined) setTimeout(converged, SUMMARY_WAIT_MS).unref();
  const operator = createOperator(settings, base, inputs, { resources, moduleStatus, controls, converged });
  // docs/operations.md: maintenance is known before the first converge delivers anything.
  await moduleStatus.followRequests((module, request) => {
    moduleStatus.tracker.generation(module, request.generation);
    controls.apply(module, request);
  });
  return { operator, resources, driftTrigger, moduleStatus, eventLog, notifier };
}

/** The Operator over its context (src/runtime/operator/operator-context.ts), with what runs beside it. */
function createOperator(
  settings: OperatorPartsSettings,
  { logger, metrics, hookMetrics, client, kube, jq, runDeps, secrets }: OperatorBase,
  { first, store, configMap, initialConfig, git, helm, readiness, startedAt, events }: OperatorInputs,
  {
    resources,
    moduleStatus,
    controls,
    converged,
  }: Pick<OperatorParts, 'resources' | 'moduleStatus'> & {
    readonly controls: ModuleControls;
    readonly converged: () => void;
  },
): Operator {
  const { tree, globalHooksDir } = first;
  const ready = onConverged(readiness, logger, startedAt);
  const operator: Operator = new Operator(
    {
      tree,
      store,
      configStore: configMap,
      hooks: new HookRegistry({
        tree,
        runDeps,
        jq,
        logger,
        onLoaded: countBindings(metrics),
      }),
      bindings: new HookBindings({ api: kube, jq, logger, metrics, secrets }),
      liveApi: kube,
      jq,
      runDeps,
      helm,
      resources,
      objectPatcher: new ObjectPatcher(
        client(settings.objectPatcherQps, settings.objectPatcherBurst, settings.objectPatcherTimeoutMs),
        jq,
      ),
      logger,
      metrics,
      hookMetrics,
      sharedComponentRoots: first.sharedComponentRoots,
      namespace: settings.namespace,
      helmTimeoutSeconds: settings.helmTimeoutSeconds,
      hookTimeoutMs: settings.hookTimeoutMs,
      helmIgnoreRelease: settings.helmIgnoreRelease || undefined,
      applyCrds: (crdsDir) =>
        applyCrds(
          crdsDir,
          { extraLabels: settings.crdExtraLabels, filterPrefixes: settings.crdFilterPrefixes },
          kube,
        ),
      state: initialOperatorState(),
      deliveries: new DeliveryPool(settings.concurrentDeliveries, (module, error) => {
        operator.deliveryFailed(module, error);
      }),
      moduleRuns: new ModuleRunPool(settings.concurrentModuleRuns, (module, error) => {
        logger.error(`module ${module}: its run ended unexpectedly: ${errorMessage(error)}`, { module });
      }),
      modulesSource: git,
      failurePolicy: settings.moduleFailurePolicy,
      status: moduleStatus.tracker,
      health: moduleStatus.health,
      controls,
      pruneGuard: {
        percent: settings.pruneGuardPercent,
        configMap: settings.configMapName,
        recordEvent: (event) => {
          events.record(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: settings.configMapName,
              namespace: settings.namespace,
            },
            { ...event, action: 'Uninstall' },
          );
        },
      },
    },
    {
      globalHooksDir,
      configMap,
      initialConfig,
      onConverged: () => {
        ready();
        converged();
      },
    },
  );
  return operator;
}
