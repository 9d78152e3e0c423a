import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadOperatorConfig, type GitWebhookSecret, type OperatorConfig } from '../config/operator-config.ts';
import { unsupportedSettingWarnings } from '../config/setting-names.ts';
import { checkHelmBinary } from '../delivery/helm/helm-binary.ts';
import { ConfigMapConfigStore } from '../delivery/configmap-config-store.ts';
import { applyCrds } from '../delivery/helm/apply-crds.ts';
import { ObjectPatcher } from '../runtime/operator/object-patcher.ts';
import { HelmClient } from '../delivery/helm/helm-client.ts';
import { KubeClient } from '../delivery/kube-client.ts';
import { writeServiceAccountKubeconfig } from '../delivery/helm/service-account-kubeconfig.ts';
import { loadKubeConnection } from '../delivery/kube-connection.ts';
import { createHookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { hookEnvironment } from '../hooks/run/run-hook-env.ts';
import { loadJqEngine } from '../jq/jq-engine.ts';
import { loadModulesTree } from '../loader/modules-tree.ts';
import { loadTreeSchemas } from '../loader/values-schemas.ts';
import { createDebugServer } from '../observability/debug/debug-server.ts';
import { startingDebugState } from '../observability/debug/debug-starting-state.ts';
import { createHookMetricsStore } from '../observability/hook-metrics-store.ts';
import type { GitWebhookOptions } from '../observability/git-webhook-route.ts';
import { createHttpServer } from '../observability/http-server.ts';
import { createLogger } from '../observability/logger.ts';
import { createOperatorMetrics } from '../observability/metrics.ts';
import { HookBindings } from '../runtime/operator/hook-bindings.ts';
import { LEASE_NAME, LeaderElector } from '../runtime/leader-election.ts';
import { HookRegistry } from '../runtime/operator/hook-registry.ts';
import { initialOperatorState } from '../runtime/operator/operator-context.ts';
import { DeliveryPool } from '../runtime/operator/delivery-pool.ts';
import { Operator } from '../runtime/operator/operator.ts';
import { ResourceMonitor } from '../runtime/operator/resource-monitor.ts';
import { startModuleStatus } from '../runtime/module-status/module-status-service.ts';
import { treeValues, type PreparedTree } from '../runtime/operator/prepare-modules-tree.ts';
import { ValuesStore } from '../runtime/values-store.ts';
import { hasGitSource, loadGitSourceConfig } from '../sources/git-source-config.ts';
import { verifyWebhookSignature } from '../sources/git-webhook-signature.ts';
import type { CliIo } from './cli-io.ts';
import { componentRoots } from '../runtime/component-roots.ts';
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
  const logger = createLogger({
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
  const kube = client(config.kubeClientQps, config.kubeClientBurst);
  const jq = await loadJqEngine({ timeoutMs: config.jqTimeoutMs });
  mkdirSync(config.tmpDir, { recursive: true });
  const configMap = new ConfigMapConfigStore(kube, config.namespace, config.configMapName, { logger });
  const initialConfig = await configMap.load();
  // Aborted when SIGTERM's grace period ends: running hooks have their process groups ended.
  const hooksStop = new AbortController();
  const runDeps = createHookRunDeps({
    logger,
    // The webhook secret is the operator's alone, whatever KADDON_HOOK_ENV passes on.
    baseEnv: hookEnvironment({ ...process.env, KADDON_GIT_WEBHOOK_SECRET: undefined }, config.hookEnv),
    cwd: process.cwd(),
    tmpRoot: config.tmpDir,
    keepTempFiles: config.keepTempFiles,
    stopSignal: hooksStop.signal,
  });
  const hookMetrics = createHookMetricsStore({ isReserved: (name) => metrics.isBuiltIn(name) });
  const stopLiveTicks = metrics.startLiveTicks();
  // Assigned once this process may act; the debug state and the Git webhook ask it from the start.
  const source: { git?: OperatorGitSource } = {};
  const http = createHttpServer({
    address: config.listenAddress,
    port: config.listenPort,
    sources: [metrics.registry, hookMetrics.registry],
    logger,
    gitWebhook:
      config.gitWebhookSecret === undefined
        ? undefined
        : {
            verifySignature: webhookVerifier(config.gitWebhookSecret),
            requestSync: () => {
              source.git?.requestSync();
              return source.git !== undefined;
            },
            logger,
          },
  });
  const bound = await http.start();
  logger.info('listening', { address: bound.address, port: bound.port });
  const stopping = waitForSignal();
  const starting = hasGitSource(process.env, {})
    ? 'waiting for the first good revision of the modules repository'
    : 'loading the modules tree';
  // Up before the tree: while the first good revision is awaited, `kaddon git status` says why.
  const debug = createDebugServer({
    socketPath: config.debugUnixSocket,
    state: startingDebugState(config.ha ? STANDBY : starting, () => source.git?.status()),
    logger,
  });
  await debug.start();
  logger.info('debug socket listening', { socket: config.debugUnixSocket });
  // ADDON_OPERATOR_HA: nothing acts (hooks, queues, Git polling, delivery) until this process leads.
  const elector = config.ha ? await lead(config, kube, { http, metrics, logger, stopping }) : undefined;
  // Without ADDON_OPERATOR_HA the one process acts: it leads, for the alert on no leader (docs/monitoring.md).
  if (!config.ha) metrics.haLeader(true);
  if (config.ha && elector === undefined) {
    logger.info('stopping while standing by');
    stopLiveTicks();
    await debug.stop();
    await http.stop();
    return;
  }
  if (config.ha) debug.serve(startingDebugState(starting, () => source.git?.status()));
  const git = hasGitSource(process.env, {})
    ? new OperatorGitSource({
        config: loadGitSourceConfig(process.env),
        jq,
        runDeps,
        unnumberedOrder: config.unnumberedModulesOrder,
        logger,
        metrics,
        initialConfig,
      })
    : undefined;
  source.git = git;
  const first = git
    ? await Promise.race([git.start(), stopping.then(() => undefined)])
    : localModulesTree(config);
  if (first === undefined) {
    logger.info('stopping before the first good revision of the modules repository');
    await git?.stop();
    stopLiveTicks();
    await debug.stop();
    await http.stop();
    return;
  }
  const { tree, globalHooksDir } = first;
  const store = await ValuesStore.open({ ...treeValues(first), configStore: configMap });
  git?.useStore(store);
  // In a Pod, helm gets a kubeconfig naming the service account's files (the same identity as ours).
  const helmKubeconfig =
    config.kubeconfig ??
    (connection.serviceAccount
      ? writeServiceAccountKubeconfig(config.tmpDir, connection.server, connection.serviceAccount)
      : undefined);
  const helm = new HelmClient({
    helmPath: config.helmPath,
    historyMax: config.helmHistoryMax,
    templateTimeoutMs: config.helmTemplateTimeoutMs,
    ...(helmKubeconfig === undefined ? {} : { kubeconfigPath: helmKubeconfig }),
    env: {
      ...(config.kubeContext ? { HELM_KUBECONTEXT: config.kubeContext } : {}),
      ...(config.kubeServer ? { HELM_KUBEAPISERVER: config.kubeServer } : {}),
    },
  });
  // Release auto-healing (docs/lifecycle.md "Helm delivery"): a module whose objects were deleted runs again.
  const resources = new ResourceMonitor({
    api: client(config.monitorKubeClientQps, config.monitorKubeClientBurst),
    intervalMs: config.resourcesMonitorIntervalMs,
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
  const moduleStatus = await startModuleStatus({
    api: kube,
    logger,
    metrics,
    namespace: config.namespace,
    healthTimeoutMs: (module) => operator.moduleDefinition(module)?.healthTimeoutMs ?? config.healthTimeoutMs,
    instance: `kaddon-${config.haIdentity}`,
    enabled: config.moduleStatus,
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
        onLoaded: (module, hooks) => {
          for (const { descriptor, config: hook } of hooks) {
            const bindings = hook.kubernetes.length + hook.schedule.length + Object.keys(hook.order).length;
            metrics.bindingCount({ hook: descriptor.name, module }, bindings);
          }
        },
      }),
      bindings: new HookBindings({ api: kube, jq, logger, metrics }),
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
      modulesSource: git,
      failurePolicy: config.moduleFailurePolicy,
      status: moduleStatus.tracker,
      health: moduleStatus.health,
    },
    {
      globalHooksDir,
      configMap,
      initialConfig,
      onConverged: () => {
        if (http.isReady()) {
          logger.info('modules converged');
          return;
        }
        http.setReady();
        logger.info('modules converged for the first time', {
          msSinceStart: Math.round(performance.now() - startedAt),
        });
      },
    },
  );
  debug.serve(operator.debugState());
  operator.start();
  resources.start();
  const signal = await Promise.race([
    stopping,
    elector ? elector.lost.then(() => LEASE_LOST) : new Promise<string>(() => undefined),
  ]);
  logger.info('stopping', { signal });
  // A leader that lost its lease stops acting at once: another replica leads now.
  if (signal === LEASE_LOST) hooksStop.abort();
  // No new tasks; the running one may finish within the grace period, then its hook is ended.
  const stopped = operator.stop();
  const finished = await Promise.race([stopped.then(() => true), delay(HOOK_GRACE_MS).then(() => false)]);
  if (!finished) {
    logger.error('the running task did not finish in time: ending running hooks', { graceMs: HOOK_GRACE_MS });
    hooksStop.abort();
    await Promise.race([stopped, delay(STOP_GRACE_MS - HOOK_GRACE_MS)]);
  }
  await resources.stop();
  await moduleStatus.stop();
  // A clean stop hands the lease over at once, so a rolling update takes seconds, not a lease period.
  await elector?.release();
  metrics.haLeader(false);
  stopLiveTicks();
  await debug.stop();
  await http.stop();
}

const STANDBY = 'standby: waiting for the leader lease (ADDON_OPERATOR_HA)';
const LEASE_LOST = 'leader lease lost';

/**
 * Waits until this process holds the leader lease, serving /healthz, /metrics and a standby /readyz
 * meanwhile; undefined when it is stopped first.
 */
async function lead(
  config: OperatorConfig,
  kube: KubeClient,
  parts: {
    readonly http: ReturnType<typeof createHttpServer>;
    readonly metrics: ReturnType<typeof createOperatorMetrics>;
    readonly logger: ReturnType<typeof createLogger>;
    readonly stopping: Promise<string>;
  },
): Promise<LeaderElector | undefined> {
  const elector = new LeaderElector(
    kube,
    {
      namespace: config.namespace,
      name: LEASE_NAME,
      identity: config.haIdentity,
      leaseDurationMs: config.haLeaseDurationMs,
      renewDeadlineMs: config.haRenewDeadlineMs,
      retryPeriodMs: config.haRetryPeriodMs,
    },
    parts.logger,
  );
  parts.metrics.haLeader(false);
  parts.http.setStandby(`${STANDBY}: this is ${config.haIdentity}`);
  parts.logger.info('standing by for the leader lease', { lease: LEASE_NAME, identity: config.haIdentity });
  const abort = new AbortController();
  void parts.stopping.then(() => {
    abort.abort();
  });
  if (!(await elector.acquire(abort.signal))) return undefined;
  parts.http.setStandby(undefined);
  parts.metrics.haLeader(true);
  parts.logger.info('leading', { lease: LEASE_NAME, identity: config.haIdentity });
  return elector;
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

/** Checks a webhook against the secret; a secret file is read at each request, so a rotated Secret is picked up. */
function webhookVerifier(secret: GitWebhookSecret): GitWebhookOptions['verifySignature'] {
  const read =
    'value' in secret ? () => secret.value : () => readFileSync(secret.file, 'utf8').replace(/\r?\n$/u, '');
  return (headers, body) => verifyWebhookSignature(headers, body, read());
}

type OperatorTree = Pick<PreparedTree, 'tree' | 'schemas' | 'globalHooksDir' | 'sharedComponentRoots'>;

/** How long SIGTERM lets a running hook finish before its process group is ended. */
const HOOK_GRACE_MS = 10_000;
/** How long SIGTERM waits for the running task (a hook, a helm upgrade) before exiting anyway. */
const STOP_GRACE_MS = 20_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

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
