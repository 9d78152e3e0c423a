import { availableParallelism, hostname } from 'node:os';
import { DEFAULT_JQ_TIMEOUT_MS } from '../jq/jq-engine.ts';
import { resolveChartRenderer, type ChartRendererChoice } from './chart-renderer-setting.ts';
import { DEFAULT_HELM_TEMPLATE_TIMEOUT_MS } from '../delivery/helm/helm-client.ts';
import { HELM2_SETTINGS, SETTINGS } from '../core/setting-names.ts';
import {
  OperatorConfigError,
  SettingReader,
  type FoundSetting,
  type SettingSource,
} from './setting-reader.ts';
import { findSecretSetting, WEBHOOK_BLANK, type SecretSetting } from './secret-setting.ts';
import { uiSignInConfig, type UiSignInConfig } from './ui-sign-in-config.ts';
import { LOG_LEVELS, LOG_TYPES, type LogLevel, type LogType } from '../observability/logger.ts';

/**
 * Where the debug socket listens unless DEBUG_UNIX_SOCKET says otherwise (docs/observability.md "Debug
 * socket").
 */
export const DEFAULT_DEBUG_UNIX_SOCKET = '/var/run/addon-operator/debug.socket';

/**
 * Everything `kaddon operator` is configured with, typed and checked once (docs/architecture.md "House
 * style").
 */
export interface OperatorConfig {
  readonly modulesDirs: readonly string[];
  readonly globalHooksDir: string;
  readonly unnumberedModulesOrder: number;
  readonly namespace: string;
  readonly configMapName: string;
  readonly tmpDir: string;
  readonly listenAddress: string;
  readonly listenPort: number;
  readonly metricsPrefix: string;
  readonly debugUnixSocket: string;
  readonly logType: LogType;
  readonly logLevel: LogLevel;
  readonly logNoTime: boolean;
  readonly helmIgnoreRelease: string;
  readonly helmTimeoutSeconds: number;
  readonly helmHistoryMax: number;
  /** The helm binary: --helm-path, HELM_BIN_PATH, KADDON_HELM_PATH, or `helm` on PATH. */
  readonly helmPath: string;
  /** Which setting named the helm binary, for the message when it cannot be run. */
  readonly helmPathSetting: string;
  readonly crdExtraLabels: Readonly<Record<string, string>>;
  readonly crdFilterPrefixes: readonly string[];
  readonly queueActionsMetrics: boolean;
  readonly keepTempFiles: boolean;
  /** KUBE_CONFIG or KUBECONFIG: kubeconfig files, colon-separated; none means in-cluster. */
  readonly kubeconfig: string | undefined;
  readonly kubeContext: string | undefined;
  readonly kubeServer: string | undefined;
  /** Client-side rate limits of the main client, the resource monitor's and the object patcher's. */
  readonly kubeClientQps: number;
  readonly kubeClientBurst: number;
  readonly monitorKubeClientQps: number;
  readonly monitorKubeClientBurst: number;
  readonly objectPatcherQps: number;
  readonly objectPatcherBurst: number;
  readonly objectPatcherTimeoutMs: number;
  /** ADDON_OPERATOR_HA: leader election on a Lease; only the leader acts. */
  readonly ha: boolean;
  /** ADDON_OPERATOR_POD, else the host name: who holds the lease. */
  readonly haIdentity: string;
  /** addon-operator's lease timings (35 s, 30 s, 10 s), settable for tests and small clusters. */
  readonly haLeaseDurationMs: number;
  readonly haRenewDeadlineMs: number;
  readonly haRetryPeriodMs: number;
  /** KADDON_HOOK_TIMEOUT: how long one hook run may take before its process group is ended; 30 min. */
  readonly hookTimeoutMs: number;
  /** KADDON_JQ_TIMEOUT: how long one jq evaluation (jqFilter, `when:`) may run. */
  readonly jqTimeoutMs: number;
  /** KADDON_HELM_TEMPLATE_TIMEOUT: how long one `helm template` of a chart module may run. */
  readonly helmTemplateTimeoutMs: number;
  /** KADDON_CHART_RENDERER: what renders chart modules (docs/delivery.md). */
  readonly chartRenderer: ChartRendererChoice;
  /** KADDON_HOOK_ENV: hooks get the operator's environment (`operator`) or an allow-list (`minimal`). */
  readonly hookEnv: 'operator' | 'minimal';
  /**
   * KADDON_CONCURRENT_DELIVERIES: how many helm deliveries may run at once (docs/lifecycle.md
   * "Overlapping delivery"); 1 delivers one release after another.
   */
  readonly concurrentDeliveries: number;
  /**
   * KADDON_CONCURRENT_MODULE_RUNS: how many ModuleRuns may run at once with the isolate policy
   * (docs/lifecycle.md "Parallel module runs"); by default the CPUs kaddon may use; 1 runs one
   * module after another.
   */
  readonly concurrentModuleRuns: number;
  /** KADDON_IN_CLUSTER_ROOT: prefixed to the service account's directory (tests only). */
  readonly inClusterRoot: string | undefined;
  /**
   * KADDON_RESOURCES_MONITOR_INTERVAL: how often delivered objects are checked (auto-healing,
   * docs/lifecycle.md "Helm delivery").
   */
  readonly resourcesMonitorIntervalMs: number;
  /** KADDON_HEALTH_TIMEOUT: how long delivered objects may stay unhealthy before Ready=False (docs/module-status.md). */
  readonly healthTimeoutMs: number;
  /**
   * KADDON_MODULE_FAILURE_POLICY: `isolate` retries a failed module in its own lane while the queue
   * goes on; `block` keeps addon-operator's head-of-line retry (docs/lifecycle.md "Failure isolation").
   */
  readonly moduleFailurePolicy: 'isolate' | 'block';
  /** KADDON_MODULE_STATUS: Module objects, Events and health following; `off` keeps addon-operator's silence. */
  readonly moduleStatus: boolean;
  /**
   * KADDON_DRIFT_MODE: `correct` puts objects changed outside kaddon back, `warn` only reports them,
   * `off` keeps addon-operator's check for deleted objects only (docs/drift.md).
   */
  readonly driftMode: 'correct' | 'warn' | 'off';
  /**
   * KADDON_DELIVERY: who writes releases, kaddon itself (`native`, the default) or the helm binary
   * (docs/delivery.md). `deliveryChosen` says whether it was set, not defaulted.
   */
  readonly delivery: 'helm' | 'native';
  readonly deliveryChosen: boolean;
  /** KADDON_DRIFT_INTERVAL: how often delivered objects are checked for drift; the resources monitor's by default. */
  readonly driftIntervalMs: number;
  /**
   * KADDON_GIT_WEBHOOK_SECRET, or the file KADDON_GIT_WEBHOOK_SECRET_FILE names (read at each
   * request): POST /hooks/git exists only with one (docs/git-webhook.md).
   */
  readonly gitWebhookSecret: SecretSetting | undefined;
  /** KADDON_UI: the status page under /ui on the listen port (docs/ui.md); `off` answers 404 there. */
  readonly ui: boolean;
  /**
   * KADDON_UI_AUTH: `kubernetes` checks each request's bearer token with a TokenReview and
   * SubjectAccessReviews; `off` shows everything to whoever reaches the port (docs/ui.md "Who may see what").
   */
  readonly uiAuth: 'kubernetes' | 'off';
  /** KADDON_UI_OIDC_* and KADDON_UI_SESSION_*: sign-in through an OpenID Connect provider, when the issuer is set. */
  readonly uiSignIn: UiSignInConfig | undefined;
  /**
   * KADDON_PRUNE_GUARD_PERCENT: a converge that would uninstall this share of the delivered releases or
   * more at once (or all of them) holds those uninstalls until confirmed; 100 or `off` turns the
   * guard off (docs/lifecycle.md "Missing inputs and mass deletion").
   */
  readonly pruneGuardPercent: number;
  /**
   * KADDON_NOTIFICATIONS_CONFIG_MAP and KADDON_NOTIFICATIONS_SECRET: the routing of notifications
   * and the URLs it names, in the operator's namespace; no ConfigMap, no notifications
   * (docs/notifications.md).
   */
  readonly notificationsConfigMap: string;
  readonly notificationsSecret: string;
}

export type { SecretSetting } from './secret-setting.ts';

export { OperatorConfigError } from './setting-reader.ts';

/**
 * Reads each setting from the first of its names that is set: command-line flags, then the
 * environment under addon-operator's documented names (the settings table in README.md) and addon-operator's
 * current ADDON_OPERATOR_* names, then the default.
 */
export function loadOperatorConfig(env: SettingSource, flags: SettingSource = {}): OperatorConfig {
  refuseHelm2(env);
  const read = new SettingReader(env, flags);
  const namespace = resolveNamespace(read, 'operator');
  const helm = resolveHelmBinary(read);
  const ui = read.choice('ui', ['on', 'off'] as const, 'on') === 'on';
  const uiAuth = read.choice('uiAuth', ['kubernetes', 'off'] as const, 'kubernetes');
  return {
    modulesDirs: splitPaths(read.text('modulesDir', 'modules')),
    globalHooksDir: read.text('globalHooksDir', 'global-hooks'),
    unnumberedModulesOrder: read.int('unnumberedModulesOrder', 1),
    namespace,
    configMapName: read.text('configMap', 'addon-operator'),
    tmpDir: read.text('tmpDir', '/tmp/addon-operator'),
    listenAddress: read.text('listenAddress', '0.0.0.0'),
    listenPort: read.port('listenPort', 9650),
    metricsPrefix: read.text('metricsPrefix', 'addon_operator_'),
    debugUnixSocket: read.text('debugUnixSocket', DEFAULT_DEBUG_UNIX_SOCKET),
    logType: read.choice('logType', LOG_TYPES, 'text'),
    logLevel: read.choice('logLevel', LOG_LEVELS, 'info'),
    logNoTime: read.bool('logNoTime', false),
    helmIgnoreRelease: read.text('helmIgnoreRelease', ''),
    helmTimeoutSeconds: read.seconds('helmTimeout', 20 * 60),
    helmHistoryMax: read.int('helmHistoryMax', 10),
    helmPath: helm.command,
    helmPathSetting: helm.from === 'PATH' ? 'HELM_BIN_PATH (unset: helm on PATH)' : helm.from,
    crdExtraLabels: labels(read.find('crdExtraLabels')),
    crdFilterPrefixes: crdFilterPrefixes(read),
    // addon-operator turns these metrics off with exactly `no`.
    queueActionsMetrics: read.find('queueActionsMetrics')?.value !== 'no',
    keepTempFiles: read.bool('keepTempFiles', false),
    kubeconfig: read.find('kubeconfig')?.value,
    kubeContext: read.find('kubeContext')?.value,
    kubeServer: read.find('kubeServer')?.value,
    kubeClientQps: read.rate('kubeClientQps', 5),
    kubeClientBurst: read.int('kubeClientBurst', 10),
    monitorKubeClientQps: read.rate('monitorKubeClientQps', 5),
    monitorKubeClientBurst: read.int('monitorKubeClientBurst', 10),
    objectPatcherQps: read.rate('objectPatcherQps', 5),
    objectPatcherBurst: read.int('objectPatcherBurst', 10),
    objectPatcherTimeoutMs: read.durationMs('objectPatcherTimeout', 10_000),
    ha: read.bool('ha', false),
    haIdentity: read.text('haIdentity', hostname()),
    haLeaseDurationMs: read.durationMs('haLeaseDuration', 35_000),
    haRenewDeadlineMs: read.durationMs('haRenewDeadline', 30_000),
    haRetryPeriodMs: read.durationMs('haRetryPeriod', 10_000),
    hookTimeoutMs: read.durationMs('hookTimeout', 30 * 60_000),
    jqTimeoutMs: read.durationMs('jqTimeout', DEFAULT_JQ_TIMEOUT_MS),
    helmTemplateTimeoutMs: read.durationMs('helmTemplateTimeout', DEFAULT_HELM_TEMPLATE_TIMEOUT_MS),
    chartRenderer: resolveChartRenderer(read),
    hookEnv: hookEnv(read),
    concurrentDeliveries: Math.max(1, read.int('concurrentDeliveries', 4)),
    concurrentModuleRuns: Math.max(1, read.int('concurrentModuleRuns', availableParallelism())),
    inClusterRoot: read.find('inClusterRoot')?.value,
    resourcesMonitorIntervalMs: read.durationMs('resourcesMonitorInterval', RESOURCES_MONITOR_INTERVAL_MS),
    healthTimeoutMs: read.durationMs('healthTimeout', 5 * 60_000),
    moduleFailurePolicy: read.choice('moduleFailurePolicy', ['isolate', 'block'] as const, 'isolate'),
    moduleStatus: read.choice('moduleStatus', ['on', 'off'] as const, 'on') === 'on',
    driftMode: read.choice('driftMode', ['correct', 'warn', 'off'] as const, 'correct'),
    driftIntervalMs: read.durationMs(
      'driftInterval',
      read.durationMs('resourcesMonitorInterval', RESOURCES_MONITOR_INTERVAL_MS),
    ),
    gitWebhookSecret: gitWebhookSecret(read),
    delivery: read.choice('delivery', ['helm', 'native'] as const, 'native'),
    deliveryChosen: read.find('delivery') !== undefined,
    ui,
    uiAuth,
    uiSignIn: ui ? uiSignInConfig(read, uiAuth) : undefined,
    pruneGuardPercent: read.percent('pruneGuardPercent', 50),
    notificationsConfigMap: read.text('notificationsConfigMap', 'kaddon-notifications'),
    notificationsSecret: read.text('notificationsSecret', 'kaddon-notifications'),
  };
}

/** addon-operator refuses to start with a Helm 2 setting; kaddon does the same. */
function refuseHelm2(env: SettingSource): void {
  const helm2 = HELM2_SETTINGS.find((name) => env[name] !== undefined && env[name] !== '');
  if (helm2 !== undefined)
    throw new OperatorConfigError(
      helm2,
      'is a Helm 2 setting',
      'Remove it: kaddon, like addon-operator, speaks Helm 3 only.',
    );
}

/** The commands that need the operator's namespace. */
export type NamespaceUser = 'operator' | 'build' | 'rbac';

/**
 * The operator's namespace: --namespace, then ADDON_OPERATOR_NAMESPACE or SHELL_OPERATOR_NAMESPACE,
 * for every command alike. The operator needs it set (it runs in it, fieldRef metadata.namespace);
 * the offline commands fall back: `build` to helm's own `default`, the namespace `helm template`
 * renders a chart for, and `rbac` to `kaddon`, the namespace deploy/ installs the operator into.
 */
export function resolveNamespace(read: SettingReader, user: NamespaceUser): string {
  const found = read.find('namespace')?.value;
  if (found !== undefined) return found;
  if (user === 'build') return 'default';
  if (user === 'rbac') return 'kaddon';
  throw new OperatorConfigError(
    SETTINGS.namespace.env[0],
    'is not set',
    'Set it to the namespace kaddon runs in (fieldRef metadata.namespace).',
  );
}

/** The helm binary to run, and what named it (`--helm-path`, a variable, or PATH) for messages. */
export interface HelmBinarySetting {
  readonly command: string;
  readonly from: string;
}

/** --helm-path, HELM_BIN_PATH, KADDON_HELM_PATH, else `helm` on PATH: the same for every command. */
export function resolveHelmBinary(read: SettingReader): HelmBinarySetting {
  const found = read.find('helmPath');
  return found ? { command: found.value, from: found.name } : { command: 'helm', from: 'PATH' };
}

/** KADDON_HOOK_ENV: hooks get the operator's environment or an allow-list, in every command. */
export function hookEnv(read: SettingReader): 'operator' | 'minimal' {
  return read.choice('hookEnv', ['operator', 'minimal'] as const, 'operator');
}

/** ADDON_OPERATOR_CRD_FILTER_PREFIXES: files of crds/ starting with one of these are not CRDs. */
export function crdFilterPrefixes(read: SettingReader): string[] {
  return read.text('crdFilterPrefixes', 'doc-,_').split(',').filter(Boolean);
}

/**
 * Only one of the two settings, a Git source for the webhook to trigger, and a secret that can be
 * read now and is not blank (docs/git-webhook.md "Turning it on").
 */
function gitWebhookSecret(read: SettingReader): SecretSetting | undefined {
  return findSecretSetting(read, 'gitWebhookSecret', 'gitWebhookSecretFile', WEBHOOK_BLANK, (found) => {
    if (read.find('modulesGitUrl') === undefined)
      throw new OperatorConfigError(
        found.name,
        'is set but MODULES_GIT_URL is not: the webhook has no Git source to trigger',
        'Set MODULES_GIT_URL, or unset the webhook secret.',
      );
  });
}

function splitPaths(value: string): string[] {
  return value.split(':').filter((part) => part !== '');
}

/**
 * addon-operator's resources monitor ticks every 4m30s (docs/lifecycle.md "Helm delivery"); the monitor adds
 * the jitter.
 */
const RESOURCES_MONITOR_INTERVAL_MS = 270_000;

/** `heritage=addon-operator,team=x`; `heritage=addon-operator` is always there, as in addon-operator. */
function labels(found: FoundSetting | undefined): Record<string, string> {
  const out: Record<string, string> = { heritage: 'addon-operator' };
  for (const pair of (found?.value ?? '').split(',').filter(Boolean)) {
    const [key, value, extra] = pair.split('=');
    if (!key || value === undefined || extra !== undefined) {
      throw new OperatorConfigError(
        found?.name ?? 'ADDON_OPERATOR_CRD_EXTRA_LABELS',
        `'${pair}' is not key=value`,
        'Write labels as key=value pairs separated by commas.',
      );
    }
    out[key.trim()] = value.trim();
  }
  return out;
}
