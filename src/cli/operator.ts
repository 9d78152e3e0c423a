import { existsSync, mkdirSync } from 'node:fs';
import { SecretMask } from '../core/secret-mask.ts';
import { parseArgs } from 'node:util';
import { errorMessage } from '../core/errors.ts';
import { loadOperatorConfig, type GitWebhookSecret, type OperatorConfig } from '../config/operator-config.ts';
import { SETTINGS, unsupportedSettingWarnings } from '../core/setting-names.ts';
import { checkHelmBinary } from '../delivery/helm/helm-binary.ts';
import { ConfigMapConfigStore } from '../delivery/configmap-config-store.ts';
import { EventRecorder } from '../delivery/event-recorder.ts';
import { applyCrds } from '../delivery/helm/apply-crds.ts';
import { ObjectPatcher } from '../runtime/operator/object-patcher.ts';
import { HelmClient } from '../delivery/helm/helm-client.ts';
import { KubeClient } from '../delivery/kube-client.ts';
import { selectReleaseEngine } from '../delivery/native/select-release-engine.ts';
import { writeServiceAccountKubeconfig } from '../delivery/helm/service-account-kubeconfig.ts';
import { loadKubeConnection, type KubeConnection } from '../delivery/kube-connection.ts';
import { createHookRunDeps, type HookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { hookEnvironment } from '../hooks/run/run-hook-env.ts';
import { loadJqEngine, type JqEngine } from '../jq/jq-engine.ts';
import { loadModulesTree } from '../loader/modules-tree.ts';
import { loadTreeSchemas } from '../loader/values-schemas.ts';
import { createDebugServer, type DebugServer } from '../observability/debug/debug-server.ts';
import { startingDebugState } from '../observability/debug/debug-starting-state.ts';
import { createHookMetricsStore, type HookMetricsStore } from '../observability/hook-metrics-store.ts';
import type { GitWebhookOptions } from '../observability/git-webhook-route.ts';
import { createHttpServer, type OperatorHttpServer } from '../observability/http-server.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import { createUiAccessCheck, OPEN_ACCESS } from '../observability/ui/ui-access.ts';
import { packageVersion, uiAssetsDir } from '../observability/ui/ui-package.ts';
import { createUiRoute } from '../observability/ui/ui-route.ts';
import type { UiState } from '../observability/ui/ui-state.ts';
import { ModuleEventLog } from '../runtime/module-status/module-event-log.ts';
import { orphanWatchdog } from '../processes/orphan-watchdog.ts';
import { createOperatorMetrics, type OperatorMetrics } from '../observability/metrics.ts';
import { HookBindings } from '../runtime/operator/hook-bindings.ts';
import type { LeaseSettings } from '../runtime/leader-election.ts';
import { HookRegistry } from '../runtime/operator/hook-registry.ts';
import { initialOperatorState } from '../runtime/operator/operator-context.ts';
import { DeliveryPool } from '../runtime/operator/delivery-pool.ts';
import { ModuleRunPool } from '../runtime/operator/module-run-pool.ts';
import { Operator } from '../runtime/operator/operator.ts';
import { DriftCheck } from '../runtime/operator/drift-check.ts';
import { DriftTrigger } from '../runtime/operator/drift-trigger.ts';
import type { ResourceEvent } from '../delivery/reconcile-list.ts';
import type { DriftIgnoreRule } from '../loader/module-manifest.ts';
import {
  countBindings,
  onConverged,
  STANDBY,
  standByForLease,
  stopReason,
  stopWithGrace,
} from '../runtime/operator/operator-lifecycle.ts';
import { ResourceMonitor } from '../runtime/operator/resource-monitor.ts';
import { startModuleStatus } from '../runtime/module-status/module-status-service.ts';
import { treeValues, type PreparedTree } from '../runtime/operator/prepare-modules-tree.ts';
import { ValuesStore } from '../runtime/values-store.ts';
import { hasGitSource, loadGitSourceConfig } from '../sources/git-source-config.ts';
import { startWebhookSignatureCheck } from '../sources/git-webhook-signature.ts';
import { readWebhookSecret } from '../config/webhook-secret.ts';
import type { CliIo } from './cli-io.ts';
import { componentRoots } from '../runtime/build/component-roots.ts';
import { OperatorGitSource } from '../runtime/operator/operator-git-source.ts';

export const operatorUsage = `Usage: kaddon operator [--helm-path PATH]

Runs the operator: converges the modules of MODULES_DIR into the cluster as Helm releases
in ADDON_OPERATOR_NAMESPACE, and follows the ConfigMap. Settings come from the environment
(the settings table in README.md); the helm binary from --helm-path, HELM_BIN_PATH or PATH.
With MODULES_GIT_URL the modules tree (and global-hooks/, components/ beside
MODULES_GIT_SUBPATH) comes from that Git repository instead, polled every
MODULES_GIT_POLL_INTERVAL; each new revision is validated before it is used.`;

/** `kaddon operator`: wiring only; the lifecycle is Operator. Resolves after SIGTERM/SIGINT. */
export async function runOperator(args: readonly string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: { 'helm-path': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout(`${operatorUsage}\n`);
    return;
  }
  const startedAt = performance.now();
  const config = loadOperatorConfig(process.env, { 'helm-path': values['helm-path'] });
  const base = await connectOperator(config, io);
  // Before the cluster is asked: a debug socket or port that cannot be served stops the operator at once.
  const endpoints = await startEndpoints(config, base);
  try {
    await serveOperator(config, base, endpoints, startedAt);
  } catch (error: unknown) {
    // The listening servers would keep the process alive after the error is reported.
    await endpoints.stop();
    throw error;
  } finally {
    exitIfStillRunning(base.logger);
  }
}

/** How long the process may linger once the operator has stopped (docs/lifecycle.md "Stopping"). */
const LINGER_AFTER_STOP_MS = 5_000;

/**
 * Once the operator has stopped, nothing should keep the process alive; should a watch, socket or
 * timer still be open, it exits anyway after a few seconds and names what was open, so that a
 * SIGTERM always ends in an exit rather than a Pod killed at its grace period. The timer itself
 * does not keep the process alive.
 */
function exitIfStillRunning(logger: Logger): void {
  setTimeout(() => {
    logger.warn('the process is still running after the operator stopped: exiting', {
      open: process.getActiveResourcesInfo().join(','),
    });
    process.exit();
  }, LINGER_AFTER_STOP_MS).unref();
}

/** Everything after the endpoints listen, until SIGTERM/SIGINT or a lost lease has been handled. */
async function serveOperator(
  config: OperatorConfig,
  base: OperatorBase,
  endpoints: Endpoints,
  startedAt: number,
): Promise<void> {
  const { logger, metrics, kube } = base;
  // Events about the operator's own inputs (a deleted ConfigMap, held uninstalls) live in its namespace.
  const events = new EventRecorder(kube, logger, { instance: `kaddon-${config.haIdentity}` });
  const configMap = new ConfigMapConfigStore(kube, config.namespace, config.configMapName, {
    logger,
    reports: {
      record: (subject, event) => {
        events.record(subject, event);
      },
      missing: (isMissing) => {
        metrics.configMapMissing(isMissing);
      },
    },
  });
  const initialConfig = await configMap.load();
  const stopping = waitForSignal();
  // ADDON_OPERATOR_HA: nothing acts (hooks, queues, Git polling, delivery) until this process leads.
  const elector = config.ha
    ? // A client of its own: a renew never waits in the rate limit behind the operator's other requests.
      await standByForLease(base.client(LEASE_CLIENT_QPS, LEASE_CLIENT_BURST), leaseSettings(config), {
        readiness: endpoints.http,
        metrics,
        logger,
        stopping,
      })
    : undefined;
  // Without ADDON_OPERATOR_HA the one process acts: it leads, for the alert on no leader (docs/monitoring.md).
  if (!config.ha) metrics.haLeader(true);
  if (config.ha && elector === undefined) {
    logger.info('stopping while standing by');
    await endpoints.stop();
    return;
  }
  if (config.ha) endpoints.debug.serve(startingDebugState(endpoints.starting, () => endpoints.git?.status()));
  const git = hasGitSource(process.env, {})
    ? new OperatorGitSource({
        config: loadGitSourceConfig(process.env),
        jq: base.jq,
        runDeps: base.runDeps,
        unnumberedOrder: config.unnumberedModulesOrder,
        logger,
        metrics,
        initialConfig,
      })
    : undefined;
  endpoints.git = git;
  const first = git
    ? await Promise.race([git.start(), stopping.then(() => undefined)])
    : localModulesTree(config);
  if (first === undefined) {
    logger.info('stopping before the first good revision of the modules repository');
    await git?.stop();
    await endpoints.stop();
    return;
  }
  const store = await ValuesStore.open({
    ...treeValues(first),
    configStore: configMap,
    secrets: base.secrets,
  });
  git?.useStore(store);
  const running = await wireOperator(config, base, {
    first,
    store,
    configMap,
    initialConfig,
    git,
    endpoints,
    startedAt,
    events,
  });
  await stopWithGrace({
    reason: await stopReason(stopping, elector?.lost),
    stop: () => running.operator.stop(),
    endHooks: () => {
      base.hooksStop.abort();
    },
    logger,
  });
  await running.stop();
  events.stop();
  // A clean stop hands the lease over at once, so a rolling update takes seconds, not a lease period.
  await elector?.release();
  metrics.haLeader(false);
  await endpoints.stop();
}

/** What every part of the operator shares: logs, metrics, the cluster, jq and how hooks run. */
interface OperatorBase {
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  readonly hookMetrics: HookMetricsStore;
  readonly connection: KubeConnection;
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

async function connectOperator(config: OperatorConfig, io: CliIo): Promise<OperatorBase> {
  const secrets = new SecretMask();
  const logger = createLogger({
    mask: (text) => secrets.mask(text),
    type: config.logType,
    level: config.logLevel,
    noTime: config.logNoTime,
    sink: {
      write: (text) => {
        io.stderr(text);
      },
    },
  });
  const metrics = createOperatorMetrics({
    prefix: config.metricsPrefix,
    queueActionsMetrics: config.queueActionsMetrics,
  });
  for (const warning of unsupportedSettingWarnings(process.env)) logger.error(warning);
  // What cannot tie helm, hooks and git to kaddon's life is said once, in the log.
  orphanWatchdog.setNotice((message) => {
    logger.error(message);
  });
  const helmVersion = await checkHelmBinary(config.helmPath, config.helmPathSetting);
  logger.info('helm found', { helm: config.helmPath, version: helmVersion });
  const connection = loadKubeConnection(process.env, {
    kubeconfig: config.kubeconfig,
    context: config.kubeContext,
    server: config.kubeServer,
    inClusterRoot: config.inClusterRoot,
  });
  const client = (qps: number, burst: number, timeoutMs?: number): KubeClient =>
    new KubeClient(connection, { metrics, rateLimit: { qps, burst }, ...(timeoutMs ? { timeoutMs } : {}) });
  const jq = await loadJqEngine({ timeoutMs: config.jqTimeoutMs });
  mkdirSync(config.tmpDir, { recursive: true });
  // Aborted when SIGTERM's grace period ends: running hooks and helm have their process groups ended.
  const hooksStop = new AbortController();
  const runDeps = createHookRunDeps({
    logger,
    // The webhook secret is the operator's alone, whatever KADDON_HOOK_ENV passes on.
    baseEnv: hookEnvironment(withoutWebhookSecret(process.env), config.hookEnv),
    cwd: process.cwd(),
    tmpRoot: config.tmpDir,
    keepTempFiles: config.keepTempFiles,
    stopSignal: hooksStop.signal,
  });
  const hookMetrics = createHookMetricsStore({ isReserved: (family) => metrics.clashesWithBuiltIn(family) });
  const kube = client(config.kubeClientQps, config.kubeClientBurst);
  return { logger, metrics, hookMetrics, connection, client, kube, jq, runDeps, hooksStop, secrets };
}

/** /metrics, /healthz, /readyz, the Git webhook and the debug socket, up before the modules tree. */
interface Endpoints {
  readonly http: OperatorHttpServer;
  readonly debug: DebugServer;
  /** What the debug state says before the operator runs. */
  readonly starting: string;
  /** Assigned once this process may act; the debug state and the Git webhook ask it from the start. */
  git: OperatorGitSource | undefined;
  /** Assigned once the operator runs: until then the status page answers 503. */
  ui: UiState | undefined;
  stop(): Promise<void>;
}

async function startEndpoints(
  config: OperatorConfig,
  { logger, metrics, hookMetrics, kube }: OperatorBase,
): Promise<Endpoints> {
  const stopLiveTicks = metrics.startLiveTicks();
  const starting = hasGitSource(process.env, {})
    ? 'waiting for the first good revision of the modules repository'
    : 'loading the modules tree';
  const endpoints: Endpoints = {
    http: createHttpServer({
      address: config.listenAddress,
      port: config.listenPort,
      sources: [metrics.registry, hookMetrics.registry],
      logger,
      gitWebhook:
        config.gitWebhookSecret === undefined
          ? undefined
          : {
              startSignatureCheck: webhookCheck(config.gitWebhookSecret),
              requestSync: () => {
                endpoints.git?.requestSync();
                return endpoints.git !== undefined;
              },
              logger,
            },
      ui: config.ui
        ? createUiRoute({
            state: () => endpoints.ui,
            access:
              config.uiAuth === 'off'
                ? () => Promise.resolve(OPEN_ACCESS)
                : createUiAccessCheck({
                    api: kube,
                    namespace: config.namespace,
                    configMap: config.configMapName,
                  }),
            assetsDir: uiAssetsDir(),
          })
        : undefined,
    }),
    starting,
    // Up before the tree: while the first good revision is awaited, `kaddon git status` says why.
    debug: createDebugServer({
      socketPath: config.debugUnixSocket,
      state: startingDebugState(config.ha ? STANDBY : starting, () => endpoints.git?.status()),
      logger,
    }),
    git: undefined,
    ui: undefined,
    stop: async () => {
      stopLiveTicks();
      await endpoints.debug.stop();
      await endpoints.http.stop();
    },
  };
  try {
    await endpoints.debug.start();
    logger.info('debug socket listening', { socket: config.debugUnixSocket });
    const bound = await endpoints.http.start();
    logger.info('listening', { address: bound.address, port: bound.port });
  } catch (error: unknown) {
    await endpoints.stop();
    throw error;
  }
  return endpoints;
}

interface OperatorInputs {
  readonly first: OperatorTree;
  readonly store: ValuesStore;
  readonly configMap: ConfigMapConfigStore;
  readonly initialConfig: Awaited<ReturnType<ConfigMapConfigStore['load']>>;
  readonly git: OperatorGitSource | undefined;
  readonly endpoints: Endpoints;
  readonly startedAt: number;
  /** Events about the operator's own inputs, in its namespace. */
  readonly events: EventRecorder;
}

/** Builds the operator from its parts and starts it; `stop` ends what runs beside it. */
async function wireOperator(
  config: OperatorConfig,
  { logger, metrics, hookMetrics, connection, client, kube, jq, runDeps, hooksStop, secrets }: OperatorBase,
  { first, store, configMap, initialConfig, git, endpoints, startedAt, events }: OperatorInputs,
): Promise<{ readonly operator: Operator; stop(): Promise<void> }> {
  const { tree, globalHooksDir } = first;
  // In a Pod, helm gets a kubeconfig naming the service account's files (the same identity as ours).
  const helmKubeconfig =
    config.kubeconfig ??
    (connection.serviceAccount
      ? writeServiceAccountKubeconfig(config.tmpDir, connection.server, connection.serviceAccount)
      : undefined);
  const helmBinary = new HelmClient({
    helmPath: config.helmPath,
    historyMax: config.helmHistoryMax,
    templateTimeoutMs: config.helmTemplateTimeoutMs,
    // Once SIGTERM's grace for the running work is over, helm is ended as hooks are.
    stopSignal: hooksStop.signal,
    ...(helmKubeconfig === undefined ? {} : { kubeconfigPath: helmKubeconfig }),
    env: {
      ...(config.kubeContext ? { HELM_KUBECONTEXT: config.kubeContext } : {}),
      ...(config.kubeServer ? { HELM_KUBEAPISERVER: config.kubeServer } : {}),
    },
  });
  // KADDON_DELIVERY (docs/delivery.md): releases are read from helm's storage with either engine.
  const helm = selectReleaseEngine(config.delivery, {
    // A helm process has client-go's own limit (5 requests/s, burst 10); the native engine gets
    // that for each delivery that may run at once, instead of sharing KUBE_CLIENT_QPS with the rest.
    api: client(5 * config.concurrentDeliveries, 10 * config.concurrentDeliveries),
    helm: helmBinary,
    helmDriver: process.env.HELM_DRIVER,
    historyMax: config.helmHistoryMax,
    stopSignal: hooksStop.signal,
    onHooks: (module) => {
      logger.info('the release holds Helm hooks: delivered by the helm binary', { module });
    },
  });
  // Release auto-healing (docs/lifecycle.md "Helm delivery"): a module whose objects were deleted runs again.
  const monitorApi = client(config.monitorKubeClientQps, config.monitorKubeClientBurst);
  const drift: DriftCheck | undefined =
    config.driftMode === 'off'
      ? undefined
      : new DriftCheck({
          mode: config.driftMode,
          api: monitorApi,
          namespace: config.namespace,
          logger,
          metrics,
          ignoreRules: (module): readonly DriftIgnoreRule[] =>
            operator.moduleDefinition(module)?.driftIgnore ?? [],
          onDrift: (module, report) => {
            moduleStatus.tracker.drifted(module, report);
          },
          onBackoff: (module, object, delayMs) => {
            moduleStatus.tracker.driftBackoff(module, object, delayMs);
          },
        });
  const resources = new ResourceMonitor({
    api: monitorApi,
    intervalMs: drift ? config.driftIntervalMs : config.resourcesMonitorIntervalMs,
    ...(drift ? { drift } : {}),
    defaultNamespace: config.namespace,
    logger,
    metrics,
    onMissing: (module) => {
      operator.healModule(module);
    },
    release: {
      status: async (module) => (await helm.status(module, config.namespace))?.status,
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
  const moduleStatus = await startModuleStatus({
    ...(driftTrigger
      ? {
          onObjectEvent: (module: string, event: ResourceEvent) => {
            driftTrigger.changed(module, event);
          },
        }
      : {}),
    api: kube,
    logger,
    metrics,
    namespace: config.namespace,
    healthTimeoutMs: (module) => operator.moduleDefinition(module)?.healthTimeoutMs ?? config.healthTimeoutMs,
    instance: `kaddon-${config.haIdentity}`,
    enabled: config.moduleStatus,
    listeners: [eventLog],
    mask: (text) => secrets.mask(text),
  });
  const operator = new Operator(
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
        client(config.objectPatcherQps, config.objectPatcherBurst, config.objectPatcherTimeoutMs),
        jq,
      ),
      logger,
      metrics,
      hookMetrics,
      sharedComponentRoots: first.sharedComponentRoots,
      namespace: config.namespace,
      helmTimeoutSeconds: config.helmTimeoutSeconds,
      hookTimeoutMs: config.hookTimeoutMs,
      helmIgnoreRelease: config.helmIgnoreRelease || undefined,
      applyCrds: (crdsDir) =>
        applyCrds(
          crdsDir,
          { extraLabels: config.crdExtraLabels, filterPrefixes: config.crdFilterPrefixes },
          kube,
        ),
      state: initialOperatorState(),
      deliveries: new DeliveryPool(config.concurrentDeliveries, (module, error) => {
        operator.deliveryFailed(module, error);
      }),
      moduleRuns: new ModuleRunPool(config.concurrentModuleRuns, (module, error) => {
        logger.error(`module ${module}: its run ended unexpectedly: ${errorMessage(error)}`, { module });
      }),
      modulesSource: git,
      failurePolicy: config.moduleFailurePolicy,
      status: moduleStatus.tracker,
      health: moduleStatus.health,
      pruneGuard: {
        percent: config.pruneGuardPercent,
        configMap: config.configMapName,
        recordEvent: (event) => {
          events.record(
            { apiVersion: 'v1', kind: 'ConfigMap', name: config.configMapName, namespace: config.namespace },
            { ...event, action: 'Uninstall' },
          );
        },
      },
    },
    {
      globalHooksDir,
      configMap,
      initialConfig,
      onConverged: onConverged(endpoints.http, logger, startedAt),
    },
  );
  endpoints.debug.serve(operator.debugState());
  endpoints.ui = operator.uiState({
    events: eventLog,
    mask: (text) => secrets.mask(text),
    version: packageVersion(),
    startedAt: Date.now() - process.uptime() * 1000,
  });
  operator.start();
  resources.start();
  return {
    operator,
    stop: async () => {
      driftTrigger?.stop();
      await resources.stop();
      await moduleStatus.stop();
    },
  };
}

/** MODULES_DIR and GLOBAL_HOOKS_DIR as they are on disk, when no Git source is set. */
function localModulesTree(config: OperatorConfig): OperatorTree {
  const tree = loadModulesTree(config.modulesDirs, { unnumberedOrder: config.unnumberedModulesOrder });
  const globalHooksDir = existsSync(config.globalHooksDir) ? config.globalHooksDir : undefined;
  return {
    tree,
    schemas: loadTreeSchemas(tree, globalHooksDir),
    globalHooksDir,
    sharedComponentRoots: componentRoots(undefined, config.modulesDirs),
  };
}

/**
 * Starts checking a webhook against the secret; a secret file is read at each request, so a rotated
 * Secret is picked up (docs/git-webhook.md).
 */
function webhookCheck(secret: GitWebhookSecret): GitWebhookOptions['startSignatureCheck'] {
  return (headers) => startWebhookSignatureCheck(headers, readWebhookSecret(secret));
}

function withoutWebhookSecret(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, ...Object.fromEntries(SETTINGS.gitWebhookSecret.env.map((name) => [name, undefined])) };
}

/** The lease client's rate limit: a renew is two requests a retry period. */
const LEASE_CLIENT_QPS = 5;
const LEASE_CLIENT_BURST = 10;

/** ADDON_OPERATOR_HA's lease, as the settings give it. */
function leaseSettings(config: OperatorConfig): Omit<LeaseSettings, 'name'> {
  return {
    namespace: config.namespace,
    identity: config.haIdentity,
    leaseDurationMs: config.haLeaseDurationMs,
    renewDeadlineMs: config.haRenewDeadlineMs,
    retryPeriodMs: config.haRetryPeriodMs,
  };
}

type OperatorTree = Pick<PreparedTree, 'tree' | 'schemas' | 'globalHooksDir' | 'sharedComponentRoots'>;

/**
 * Resolves on the first SIGTERM/SIGINT. The listeners stay installed (later signals are ignored):
 * execa's `cleanup` (signal-exit) re-raises a signal when its own handler is the only listener
 * left, which killed the operator by the signal while a helm child ran instead of exiting 0.
 */
function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const once = (signal: string): void => {
      resolve(signal);
    };
    process.on('SIGTERM', once);
    process.on('SIGINT', once);
  });
}
