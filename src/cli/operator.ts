import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SecretMask } from '../core/secret-mask.ts';
import { loadOperatorConfig, type OperatorConfig, type SecretSetting } from '../config/operator-config.ts';
import { readSecretSetting } from '../config/secret-setting.ts';
import { SETTINGS, unsupportedSettingWarnings } from '../core/setting-names.ts';
import { checkHelmBinary } from '../delivery/helm/helm-binary.ts';
import { ChartRenderer } from '../delivery/helm/chart-renderer.ts';
import { HelmClient } from '../delivery/helm/helm-client.ts';
import { writeServiceAccountKubeconfig } from '../delivery/helm/service-account-kubeconfig.ts';
import type { ApplyApi } from '../delivery/drift/release-objects.ts';
import { KubeClient } from '../delivery/kube-client.ts';
import { loadKubeConnection, type KubeConnection } from '../delivery/kube-connection.ts';
import { selectReleaseEngine } from '../delivery/native/select-release-engine.ts';
import { createHookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { hookEnvironment } from '../hooks/run/run-hook-env.ts';
import { loadJqEngine } from '../jq/jq-engine.ts';
import { createDebugServer } from '../observability/debug/debug-server.ts';
import { startingDebugState } from '../observability/debug/debug-starting-state.ts';
import type { GitWebhookOptions } from '../observability/git-webhook-route.ts';
import { createHookMetricsStore } from '../observability/hook-metrics-store.ts';
import { createHttpServer } from '../observability/http-server.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import { randomBytes } from 'node:crypto';
import { createOperatorMetrics } from '../observability/metrics.ts';
import { createSubjectAccessCheck, createUiAccessCheck, OPEN_ACCESS } from '../observability/ui/ui-access.ts';
import { UiSessions } from '../observability/ui/ui-session.ts';
import { createUiSignIn, type UiSignInOptions } from '../observability/ui/ui-sign-in.ts';
import { CLIENT_SECRET_BLANK, SESSION_KEY_BLANK, type UiSignInConfig } from '../config/ui-sign-in-config.ts';
import { uiAssetsDir } from '../observability/ui/ui-package.ts';
import { createUiRoute } from '../observability/ui/ui-route.ts';
import { orphanWatchdog } from '../processes/orphan-watchdog.ts';
import type { OperatorContext } from '../runtime/operator/operator-context.ts';
import type { OperatorBase } from '../runtime/operator/operator-parts.ts';
import { runOperatorProcess, type OperatorEndpoints } from '../runtime/operator/operator-process.ts';
import { hasGitSource, loadGitSourceConfig } from '../sources/git-source-config.ts';
import { startWebhookSignatureCheck } from '../sources/git-webhook-signature.ts';
import type { CliIo } from './cli-io.ts';
import { waitForStopSignal } from './stop-on-signals.ts';

export const operatorUsage = `Usage: kaddon operator [--helm-path PATH]

Runs the operator: converges the modules of MODULES_DIR into the cluster as Helm releases
in ADDON_OPERATOR_NAMESPACE, and follows the ConfigMap. Settings come from the environment
(the settings table in README.md); the helm binary from --helm-path, HELM_BIN_PATH or PATH.
With MODULES_GIT_URL the modules tree (and global-hooks/, components/ beside
MODULES_GIT_SUBPATH) comes from that Git repository instead, polled every
MODULES_GIT_POLL_INTERVAL; each new revision is validated before it is used.`;

/**
 * `kaddon operator`: reads the settings and builds the parts; the start and stop sequence is
 * runOperatorProcess's (src/runtime/operator/operator-process.ts). Resolves after SIGTERM/SIGINT.
 */
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
  await runOperatorProcess({
    settings: config,
    base,
    endpoints: buildEndpoints(config, base),
    gitSource: hasGitSource(process.env, {}) ? () => loadGitSourceConfig(process.env) : undefined,
    helm: () => buildReleaseEngine(config, base),
    waitForStop: waitForStopSignal,
    startedAt,
  });
}

/** The parts every other part shares; the helm binary is checked and the cluster connection read. */
async function connectOperator(
  config: OperatorConfig,
  io: CliIo,
): Promise<OperatorBase & { readonly connection: KubeConnection }> {
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
    // The webhook secret, the sign-in's client secret and session key are the operator's alone,
    // whatever KADDON_HOOK_ENV passes on.
    baseEnv: hookEnvironment(withoutOperatorSecrets(process.env), config.hookEnv),
    cwd: process.cwd(),
    tmpRoot: config.tmpDir,
    keepTempFiles: config.keepTempFiles,
    stopSignal: hooksStop.signal,
  });
  const hookMetrics = createHookMetricsStore({ isReserved: (family) => metrics.clashesWithBuiltIn(family) });
  const kube = client(config.kubeClientQps, config.kubeClientBurst);
  return { logger, metrics, hookMetrics, connection, client, kube, jq, runDeps, hooksStop, secrets };
}

/** /metrics, /healthz, /readyz, the Git webhook and the debug socket, built to listen before the modules tree. */
function buildEndpoints(
  config: OperatorConfig,
  { logger, metrics, hookMetrics, client }: OperatorBase,
): OperatorEndpoints {
  const stopLiveTicks = metrics.startLiveTicks();
  // The status page's reviews and reads go through a client and a rate limit of their own, so no
  // request to the page waits in, or takes, the operator's; stopping abandons what still waits.
  const uiStop = new AbortController();
  const uiApi = abortedBy(client(UI_CLIENT_QPS, UI_CLIENT_BURST, UI_CLIENT_TIMEOUT_MS), uiStop.signal);
  const accessOptions = {
    api: uiApi,
    namespace: config.namespace,
    configMap: config.configMapName,
    signal: uiStop.signal,
  };
  const starting = hasGitSource(process.env, {})
    ? 'waiting for the first good revision of the modules repository'
    : 'loading the modules tree';
  const endpoints: OperatorEndpoints = {
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
                : createUiAccessCheck(accessOptions),
            signIn:
              config.uiSignIn === undefined
                ? undefined
                : {
                    flow: createUiSignIn(signInOptions(config.uiSignIn, logger)),
                    access: createSubjectAccessCheck(accessOptions),
                  },
            assetsDir: uiAssetsDir(),
          })
        : undefined,
    }),
    starting,
    // Up before the tree: while the first good revision is awaited, `kaddon git status` says why.
    debug: createDebugServer({
      socketPath: config.debugUnixSocket,
      state: startingDebugState(starting, () => endpoints.git?.status()),
      logger,
    }),
    debugSocket: config.debugUnixSocket,
    git: undefined,
    ui: undefined,
    uiApi,
    stop: async () => {
      uiStop.abort();
      stopLiveTicks();
      await endpoints.debug.stop();
      await endpoints.http.stop();
    },
  };
  return endpoints;
}

/** The sign-in's settings (config/ui-sign-in-config.ts) as the sign-in flow takes them; secrets are read at each use. */
function signInOptions(config: UiSignInConfig, logger: Logger): UiSignInOptions {
  const secret = config.clientSecret;
  const key = config.sessionKey;
  return {
    ...config,
    clientSecret: () => (secret === undefined ? undefined : readSecretSetting(secret, CLIENT_SECRET_BLANK)),
    sessions: new UiSessions({
      key: key === undefined ? randomBytes(32) : Buffer.from(readSecretSetting(key, SESSION_KEY_BLANK)),
      ttlMs: config.sessionTtlMs,
    }),
    logger,
  };
}

/** The status page's client (docs/ui.md "Limits"): a new user costs four requests (a TokenReview, three access reviews), a module's releases one. */
const UI_CLIENT_QPS = 10;
const UI_CLIENT_BURST = 20;
const UI_CLIENT_TIMEOUT_MS = 10_000;

/** `api` whose every request also ends when `signal` aborts, waiting in its rate limit included. */
function abortedBy(api: KubeClient, signal: AbortSignal): ApplyApi {
  return {
    request: (method, apiPath, options) =>
      api.request(method, apiPath, {
        ...options,
        signal: options?.signal ? AbortSignal.any([options.signal, signal]) : signal,
      }),
    resolveResource: (apiVersion, kind) => api.resolveResource(apiVersion, kind),
  };
}

/** KADDON_DELIVERY (docs/delivery.md): releases are read from helm's storage with either engine. */
function buildReleaseEngine(
  config: OperatorConfig,
  { logger, connection, client, hooksStop }: OperatorBase & { readonly connection: KubeConnection },
): OperatorContext['helm'] {
  // In a Pod, helm gets a kubeconfig naming the service account's files (the same identity as ours).
  const helmKubeconfig =
    config.kubeconfig ??
    (connection.serviceAccount
      ? writeServiceAccountKubeconfig(config.tmpDir, connection.server, connection.serviceAccount)
      : undefined);
  if (config.chartRenderer.notice !== undefined) logger.warn(config.chartRenderer.notice);
  const renderer =
    config.chartRenderer.binary === undefined
      ? undefined
      : new ChartRenderer({
          binary: config.chartRenderer.binary,
          templateTimeoutMs: config.helmTemplateTimeoutMs,
          stopSignal: hooksStop.signal,
        });
  const helmBinary = new HelmClient({
    helmPath: config.helmPath,
    historyMax: config.helmHistoryMax,
    templateTimeoutMs: config.helmTemplateTimeoutMs,
    ...(renderer === undefined ? {} : { templater: renderer }),
    // Once SIGTERM's grace for the running work is over, helm is ended as hooks are.
    stopSignal: hooksStop.signal,
    ...(helmKubeconfig === undefined ? {} : { kubeconfigPath: helmKubeconfig }),
    env: {
      ...(config.kubeContext ? { HELM_KUBECONTEXT: config.kubeContext } : {}),
      ...(config.kubeServer ? { HELM_KUBEAPISERVER: config.kubeServer } : {}),
    },
  });
  return selectReleaseEngine(config.delivery, {
    chosen: config.deliveryChosen,
    onBinaryStorage: (driver) => {
      logger.warn(
        `HELM_DRIVER is '${driver}': releases are delivered by the helm binary; native delivery writes only helm's secret storage (docs/delivery.md)`,
      );
    },
    // Release reads share client-go's limit (5 requests/s, burst 10) for each delivery that may run
    // at once, apart from KUBE_CLIENT_QPS; each release written paces its own requests as a helm
    // process does, so what bounds the writes is KADDON_CONCURRENT_DELIVERIES (docs/delivery.md).
    api: client(5 * config.concurrentDeliveries, 10 * config.concurrentDeliveries),
    writeApi: client(0, 0),
    helm: helmBinary,
    helmDriver: process.env.HELM_DRIVER,
    historyMax: config.helmHistoryMax,
    stopSignal: hooksStop.signal,
    onHooks: (module) => {
      logger.info('the release holds Helm hooks: delivered by the helm binary', { module });
    },
  });
}

/**
 * Starts checking a webhook against the secret; a secret file is read at each request, so a rotated
 * Secret is picked up (docs/git-webhook.md).
 */
function webhookCheck(secret: SecretSetting): GitWebhookOptions['startSignatureCheck'] {
  return (headers) => startWebhookSignatureCheck(headers, readSecretSetting(secret));
}

function withoutOperatorSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const secrets = [SETTINGS.gitWebhookSecret, SETTINGS.uiOidcClientSecret, SETTINGS.uiSessionKey];
  return {
    ...env,
    ...Object.fromEntries(secrets.flatMap(({ env: names }) => names.map((name) => [name, undefined]))),
  };
}
