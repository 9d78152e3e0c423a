import { existsSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { KaddonError } from '../core/errors.ts';
import { parseGoDuration } from '../core/go-duration.ts';
import { DEFAULT_JQ_TIMEOUT_MS } from '../jq/jq-engine.ts';
import { DEFAULT_HELM_TEMPLATE_TIMEOUT_MS } from '../delivery/helm/helm-client.ts';
import { HELM2_SETTINGS, SETTING_NAMES } from './setting-names.ts';
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
  /** KADDON_DRIFT_INTERVAL: how often delivered objects are checked for drift; the resources monitor's by default. */
  readonly driftIntervalMs: number;
  /**
   * KADDON_GIT_WEBHOOK_SECRET, or the file KADDON_GIT_WEBHOOK_SECRET_FILE names (read at each
   * request): POST /hooks/git exists only with one (docs/git-webhook.md).
   */
  readonly gitWebhookSecret: GitWebhookSecret | undefined;
}

export type GitWebhookSecret = { readonly value: string } | { readonly file: string };

/** A setting with a value that cannot be used, naming the variable or flag to fix. */
export class OperatorConfigError extends KaddonError {
  readonly code = 'config-invalid';
  constructor(setting: string, problem: string, hint: string) {
    super(`setting '${setting}': ${problem}.`, hint);
  }
}

type Source = Readonly<Record<string, string | undefined>>;

/**
 * Reads each setting from the first of its names that is set: command-line flags, then the
 * environment under addon-operator's documented names (the settings table in README.md) and addon-operator's
 * current ADDON_OPERATOR_* names, then the default.
 */
export function loadOperatorConfig(env: Source, flags: Source = {}): OperatorConfig {
  const get = (flag: string, ...names: readonly string[]): { name: string; value: string } | undefined => {
    if (flags[flag] !== undefined) return { name: `--${flag}`, value: flags[flag] };
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value !== '') return { name, value };
    }
    return undefined;
  };
  const helm2 = HELM2_SETTINGS.find((name) => env[name] !== undefined && env[name] !== '');
  if (helm2 !== undefined)
    throw new OperatorConfigError(
      helm2,
      'is a Helm 2 setting',
      'Remove it: kaddon, like addon-operator, speaks Helm 3 only.',
    );
  const text = (flag: string, fallback: string, ...names: readonly string[]): string =>
    get(flag, ...names)?.value ?? fallback;
  const int = (flag: string, fallback: number, ...names: readonly string[]): number => {
    const found = get(flag, ...names);
    if (!found) return fallback;
    const value = Number(found.value);
    if (!Number.isInteger(value) || value < 0)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a whole number`,
        `Set ${found.name} to a number such as ${fallback}.`,
      );
    return value;
  };
  const bool = (flag: string, fallback: boolean, ...names: readonly string[]): boolean => {
    const found = get(flag, ...names);
    if (!found) return fallback;
    if (/^(true|yes|1)$/i.test(found.value)) return true;
    if (/^(false|no|0)$/i.test(found.value)) return false;
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not true or false`,
      `Set ${found.name} to true or false.`,
    );
  };
  const choice = <T extends string>(
    allowed: readonly T[],
    flag: string,
    fallback: T,
    ...names: readonly string[]
  ): T => {
    const found = get(flag, ...names);
    if (!found) return fallback;
    const value = found.value.toLowerCase();
    if (!(allowed as readonly string[]).includes(value))
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not one of ${allowed.join(', ')}`,
        `Set ${found.name} to one of ${allowed.join(', ')}.`,
      );
    return value as T;
  };
  const rate = (flag: string, fallback: number, ...names: readonly string[]): number => {
    const found = get(flag, ...names);
    if (!found) return fallback;
    const value = Number(found.value);
    if (!Number.isFinite(value) || value < 0)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a rate`,
        `Set ${found.name} to requests per second such as ${fallback}.`,
      );
    return value;
  };
  const names = SETTING_NAMES;
  const helm = get('helm-path', ...names.helmPath);
  const namespace = text('namespace', '', ...names.namespace);
  if (!namespace)
    throw new OperatorConfigError(
      'ADDON_OPERATOR_NAMESPACE',
      'is not set',
      'Set it to the namespace kaddon runs in (fieldRef metadata.namespace).',
    );
  return {
    modulesDirs: splitPaths(text('modules-dir', 'modules', ...names.modulesDir)),
    globalHooksDir: text('global-hooks-dir', 'global-hooks', ...names.globalHooksDir),
    unnumberedModulesOrder: int('unnumbered-modules-order', 1, ...names.unnumberedModulesOrder),
    namespace,
    configMapName: text('config-map', 'addon-operator', ...names.configMap),
    tmpDir: text('tmp-dir', '/tmp/addon-operator', ...names.tmpDir),
    listenAddress: text('listen-address', '0.0.0.0', ...names.listenAddress),
    listenPort: port(get('listen-port', ...names.listenPort)),
    metricsPrefix: text('prometheus-metrics-prefix', 'addon_operator_', ...names.metricsPrefix),
    debugUnixSocket: text('debug-unix-socket', DEFAULT_DEBUG_UNIX_SOCKET, 'DEBUG_UNIX_SOCKET'),
    logType: choice(LOG_TYPES, 'log-type', 'text', 'LOG_TYPE'),
    logLevel: choice(LOG_LEVELS, 'log-level', 'info', 'LOG_LEVEL'),
    logNoTime: bool('log-no-time', false, 'LOG_NO_TIME'),
    helmIgnoreRelease: text('helm-ignore-release', '', 'HELM_IGNORE_RELEASE'),
    helmTimeoutSeconds: durationSeconds(get('helm-timeout', 'HELM_TIMEOUT'), 20 * 60),
    helmHistoryMax: int('helm-history-max', 10, 'HELM_HISTORY_MAX'),
    helmPath: helm?.value ?? 'helm',
    helmPathSetting: helm?.name ?? 'HELM_BIN_PATH (unset: helm on PATH)',
    crdExtraLabels: labels(get('crd-extra-labels', 'ADDON_OPERATOR_CRD_EXTRA_LABELS')),
    crdFilterPrefixes: text('crd-filters', 'doc-,_', 'ADDON_OPERATOR_CRD_FILTER_PREFIXES')
      .split(',')
      .filter(Boolean),
    queueActionsMetrics: env.QUEUE_ACTIONS_METRICS !== 'no',
    keepTempFiles: bool('debug-keep-tmp-files', false, 'DEBUG_KEEP_TMP_FILES'),
    kubeconfig: get('kube-config', ...names.kubeconfig)?.value,
    kubeContext: get('kube-context', ...names.kubeContext)?.value,
    kubeServer: get('kube-server', ...names.kubeServer)?.value,
    kubeClientQps: rate('kube-client-qps', 5, ...names.kubeClientQps),
    kubeClientBurst: int('kube-client-burst', 10, ...names.kubeClientBurst),
    monitorKubeClientQps: rate('helm-monitor-kube-client-qps', 5, ...names.monitorKubeClientQps),
    monitorKubeClientBurst: int('helm-monitor-kube-client-burst', 10, ...names.monitorKubeClientBurst),
    objectPatcherQps: rate('object-patcher-kube-client-qps', 5, ...names.objectPatcherQps),
    objectPatcherBurst: int('object-patcher-kube-client-burst', 10, ...names.objectPatcherBurst),
    objectPatcherTimeoutMs: positiveDurationMs(
      get('object-patcher-kube-client-timeout', ...names.objectPatcherTimeout),
      10_000,
    ),
    ha: bool('ha', false, ...names.ha),
    haIdentity: text('pod', hostname(), ...names.haIdentity),
    haLeaseDurationMs: positiveDurationMs(get('ha-lease-duration', ...names.haLeaseDuration), 35_000),
    haRenewDeadlineMs: positiveDurationMs(get('ha-renew-deadline', ...names.haRenewDeadline), 30_000),
    haRetryPeriodMs: positiveDurationMs(get('ha-retry-period', ...names.haRetryPeriod), 10_000),
    hookTimeoutMs: positiveDurationMs(get('hook-timeout', ...names.hookTimeout), 30 * 60_000),
    jqTimeoutMs: positiveDurationMs(get('jq-timeout', ...names.jqTimeout), DEFAULT_JQ_TIMEOUT_MS),
    helmTemplateTimeoutMs: positiveDurationMs(
      get('helm-template-timeout', ...names.helmTemplateTimeout),
      DEFAULT_HELM_TEMPLATE_TIMEOUT_MS,
    ),
    hookEnv: choice(['operator', 'minimal'] as const, 'hook-env', 'operator', ...names.hookEnv),
    concurrentDeliveries: Math.max(1, int('concurrent-deliveries', 4, ...names.concurrentDeliveries)),
    concurrentModuleRuns: Math.max(
      1,
      int('concurrent-module-runs', availableParallelism(), ...names.concurrentModuleRuns),
    ),
    inClusterRoot: env.KADDON_IN_CLUSTER_ROOT || undefined,
    resourcesMonitorIntervalMs: positiveDurationMs(
      get('resources-monitor-interval', 'KADDON_RESOURCES_MONITOR_INTERVAL'),
      RESOURCES_MONITOR_INTERVAL_MS,
    ),
    healthTimeoutMs: positiveDurationMs(get('health-timeout', ...names.healthTimeout), 5 * 60_000),
    moduleFailurePolicy: choice(
      ['isolate', 'block'] as const,
      'module-failure-policy',
      'isolate',
      ...names.moduleFailurePolicy,
    ),
    moduleStatus: choice(['on', 'off'] as const, 'module-status', 'on', ...names.moduleStatus) === 'on',
    driftMode: choice(['correct', 'warn', 'off'] as const, 'drift-mode', 'correct', ...names.driftMode),
    driftIntervalMs: positiveDurationMs(
      get('drift-interval', ...names.driftInterval),
      positiveDurationMs(
        get('resources-monitor-interval', 'KADDON_RESOURCES_MONITOR_INTERVAL'),
        RESOURCES_MONITOR_INTERVAL_MS,
      ),
    ),
    gitWebhookSecret: gitWebhookSecret(env, get),
  };
}

/** Only one of the two settings, a file that exists, and a Git source for the webhook to trigger. */
function gitWebhookSecret(
  env: Source,
  get: (flag: string, ...names: readonly string[]) => { name: string; value: string } | undefined,
): GitWebhookSecret | undefined {
  const value = get('git-webhook-secret', ...SETTING_NAMES.gitWebhookSecret);
  const file = get('git-webhook-secret-file', ...SETTING_NAMES.gitWebhookSecretFile);
  const found = value ?? file;
  if (found === undefined) return undefined;
  if (value !== undefined && file !== undefined)
    throw new OperatorConfigError(file.name, `is set together with ${value.name}`, 'Set one of the two.');
  if (!env.MODULES_GIT_URL)
    throw new OperatorConfigError(
      found.name,
      'is set but MODULES_GIT_URL is not: the webhook has no Git source to trigger',
      'Set MODULES_GIT_URL, or unset the webhook secret.',
    );
  if (file === undefined) return { value: found.value };
  if (!existsSync(file.value))
    throw new OperatorConfigError(
      file.name,
      `the file '${file.value}' does not exist`,
      'Mount the secret there or correct the path.',
    );
  return { file: file.value };
}

function splitPaths(value: string): string[] {
  return value.split(':').filter((part) => part !== '');
}

function port(found: { name: string; value: string } | undefined): number {
  if (!found) return 9650;
  const value = Number(found.value);
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not a port`,
      'Use a port number from 1 to 65535.',
    );
  return value;
}

/** A Go duration (`20m`, `90s`, `1h30m`) or a number of seconds. */
function durationSeconds(found: { name: string; value: string } | undefined, fallback: number): number {
  if (!found) return fallback;
  if (/^\d+$/.test(found.value)) return Number(found.value);
  const parts = [...found.value.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== found.value)
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not a duration`,
      'Write it like 20m, 90s or 1h30m.',
    );
  const unit = { h: 3600, m: 60, s: 1 } as const;
  return parts.reduce((sum, part) => sum + Number(part[1]) * unit[part[2] as keyof typeof unit], 0);
}

/**
 * addon-operator's resources monitor ticks every 4m30s (docs/lifecycle.md "Helm delivery"); the monitor adds
 * the jitter.
 */
const RESOURCES_MONITOR_INTERVAL_MS = 270_000;

/** A Go duration as MODULES_GIT_POLL_INTERVAL takes it (`2s`, `5m`, `4m30s`), above zero. */
export function positiveDurationMs(
  found: { name: string; value: string } | undefined,
  fallback: number,
): number {
  if (!found) return fallback;
  const ms = parseGoDuration(found.value);
  if (ms === undefined || ms <= 0)
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not a positive duration`,
      'Write it like 30s, 5m or 4m30s.',
    );
  return ms;
}

/** `heritage=addon-operator,team=x`; `heritage=addon-operator` is always there, as in addon-operator. */
function labels(found: { name: string; value: string } | undefined): Record<string, string> {
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
