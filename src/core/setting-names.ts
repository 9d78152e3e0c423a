/**
 * Every setting kaddon reads: its command-line flag and the environment variables it answers to,
 * first name first (addon-operator's documented name, the ADDON_OPERATOR_* name its current code
 * reads, the SHELL_OPERATOR_* fallback, then kaddon's own). Every command reads settings through this
 * one table (config/setting-reader.ts; the Git source's MODULES_GIT_* settings through
 * sources/git-source-config.ts, which checks them); the settings table in README.md lists it for users.
 */
export const SETTINGS = {
  modulesDir: { flag: 'modules-dir', env: ['MODULES_DIR', 'ADDON_OPERATOR_MODULES_DIR'] },
  globalHooksDir: {
    flag: 'global-hooks-dir',
    env: ['GLOBAL_HOOKS_DIR', 'ADDON_OPERATOR_GLOBAL_HOOKS_DIR', 'SHELL_OPERATOR_HOOKS_DIR'],
  },
  unnumberedModulesOrder: {
    flag: 'unnumbered-modules-order',
    env: ['UNNUMBERED_MODULE_ORDER', 'UNNUMBERED_MODULES_ORDER', 'ADDON_OPERATOR_UNNUMBERED_MODULES_ORDER'],
  },
  namespace: { flag: 'namespace', env: ['ADDON_OPERATOR_NAMESPACE', 'SHELL_OPERATOR_NAMESPACE'] },
  configMap: { flag: 'config-map', env: ['ADDON_OPERATOR_CONFIG_MAP'] },
  tmpDir: { flag: 'tmp-dir', env: ['ADDON_OPERATOR_TMP_DIR', 'SHELL_OPERATOR_TMP_DIR'] },
  listenAddress: {
    flag: 'listen-address',
    env: ['ADDON_OPERATOR_LISTEN_ADDRESS', 'SHELL_OPERATOR_LISTEN_ADDRESS'],
  },
  listenPort: { flag: 'listen-port', env: ['ADDON_OPERATOR_LISTEN_PORT', 'SHELL_OPERATOR_LISTEN_PORT'] },
  metricsPrefix: {
    flag: 'prometheus-metrics-prefix',
    env: ['ADDON_OPERATOR_PROMETHEUS_METRICS_PREFIX', 'SHELL_OPERATOR_PROMETHEUS_METRICS_PREFIX'],
  },
  debugUnixSocket: { flag: 'debug-unix-socket', env: ['DEBUG_UNIX_SOCKET'] },
  debugTimeout: { flag: 'timeout', env: ['KADDON_DEBUG_TIMEOUT'] },
  logType: { flag: 'log-type', env: ['LOG_TYPE'] },
  logLevel: { flag: 'log-level', env: ['LOG_LEVEL'] },
  logNoTime: { flag: 'log-no-time', env: ['LOG_NO_TIME'] },
  helmPath: { flag: 'helm-path', env: ['HELM_BIN_PATH', 'KADDON_HELM_PATH'] },
  helmIgnoreRelease: { flag: 'helm-ignore-release', env: ['HELM_IGNORE_RELEASE'] },
  helmTimeout: { flag: 'helm-timeout', env: ['HELM_TIMEOUT'] },
  helmHistoryMax: { flag: 'helm-history-max', env: ['HELM_HISTORY_MAX'] },
  crdExtraLabels: { flag: 'crd-extra-labels', env: ['ADDON_OPERATOR_CRD_EXTRA_LABELS'] },
  crdFilterPrefixes: { flag: 'crd-filters', env: ['ADDON_OPERATOR_CRD_FILTER_PREFIXES'] },
  queueActionsMetrics: { flag: 'queue-actions-metrics', env: ['QUEUE_ACTIONS_METRICS'] },
  keepTempFiles: { flag: 'debug-keep-tmp-files', env: ['DEBUG_KEEP_TMP_FILES'] },
  kubeconfig: { flag: 'kube-config', env: ['KUBE_CONFIG', 'KUBECONFIG'] },
  kubeContext: { flag: 'kube-context', env: ['KUBE_CONTEXT'] },
  kubeServer: { flag: 'kube-server', env: ['KUBE_SERVER'] },
  kubeClientQps: { flag: 'kube-client-qps', env: ['KUBE_CLIENT_QPS'] },
  kubeClientBurst: { flag: 'kube-client-burst', env: ['KUBE_CLIENT_BURST'] },
  monitorKubeClientQps: { flag: 'helm-monitor-kube-client-qps', env: ['HELM_MONITOR_KUBE_CLIENT_QPS'] },
  monitorKubeClientBurst: { flag: 'helm-monitor-kube-client-burst', env: ['HELM_MONITOR_KUBE_CLIENT_BURST'] },
  objectPatcherQps: { flag: 'object-patcher-kube-client-qps', env: ['OBJECT_PATCHER_KUBE_CLIENT_QPS'] },
  objectPatcherBurst: { flag: 'object-patcher-kube-client-burst', env: ['OBJECT_PATCHER_KUBE_CLIENT_BURST'] },
  objectPatcherTimeout: {
    flag: 'object-patcher-kube-client-timeout',
    env: ['OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT'],
  },
  inClusterRoot: { flag: 'in-cluster-root', env: ['KADDON_IN_CLUSTER_ROOT'] },
  hookEnv: { flag: 'hook-env', env: ['KADDON_HOOK_ENV'] },
  jqTimeout: { flag: 'jq-timeout', env: ['KADDON_JQ_TIMEOUT'] },
  helmTemplateTimeout: { flag: 'helm-template-timeout', env: ['KADDON_HELM_TEMPLATE_TIMEOUT'] },
  chartRenderer: { flag: 'chart-renderer', env: ['KADDON_CHART_RENDERER'] },
  hookTimeout: { flag: 'hook-timeout', env: ['KADDON_HOOK_TIMEOUT'] },
  ha: { flag: 'ha', env: ['ADDON_OPERATOR_HA'] },
  haIdentity: { flag: 'pod', env: ['ADDON_OPERATOR_POD'] },
  haLeaseDuration: { flag: 'ha-lease-duration', env: ['KADDON_HA_LEASE_DURATION'] },
  haRenewDeadline: { flag: 'ha-renew-deadline', env: ['KADDON_HA_RENEW_DEADLINE'] },
  haRetryPeriod: { flag: 'ha-retry-period', env: ['KADDON_HA_RETRY_PERIOD'] },
  concurrentDeliveries: { flag: 'concurrent-deliveries', env: ['KADDON_CONCURRENT_DELIVERIES'] },
  concurrentModuleRuns: { flag: 'concurrent-module-runs', env: ['KADDON_CONCURRENT_MODULE_RUNS'] },
  resourcesMonitorInterval: {
    flag: 'resources-monitor-interval',
    env: ['KADDON_RESOURCES_MONITOR_INTERVAL'],
  },
  healthTimeout: { flag: 'health-timeout', env: ['KADDON_HEALTH_TIMEOUT'] },
  moduleFailurePolicy: { flag: 'module-failure-policy', env: ['KADDON_MODULE_FAILURE_POLICY'] },
  moduleStatus: { flag: 'module-status', env: ['KADDON_MODULE_STATUS'] },
  driftMode: { flag: 'drift-mode', env: ['KADDON_DRIFT_MODE'] },
  driftInterval: { flag: 'drift-interval', env: ['KADDON_DRIFT_INTERVAL'] },
  delivery: { flag: 'delivery', env: ['KADDON_DELIVERY'] },
  pruneGuardPercent: { flag: 'prune-guard-percent', env: ['KADDON_PRUNE_GUARD_PERCENT'] },
  notificationsConfigMap: { flag: 'notifications-config-map', env: ['KADDON_NOTIFICATIONS_CONFIG_MAP'] },
  notificationsSecret: { flag: 'notifications-secret', env: ['KADDON_NOTIFICATIONS_SECRET'] },
  gitWebhookSecret: { flag: 'git-webhook-secret', env: ['KADDON_GIT_WEBHOOK_SECRET'] },
  gitWebhookSecretFile: { flag: 'git-webhook-secret-file', env: ['KADDON_GIT_WEBHOOK_SECRET_FILE'] },
  ui: { flag: 'ui', env: ['KADDON_UI'] },
  uiAuth: { flag: 'ui-auth', env: ['KADDON_UI_AUTH'] },
  // Sign-in to the status page (docs/ui.md "Signing in"), checked by config/ui-sign-in-config.ts.
  uiOidcIssuer: { flag: 'ui-oidc-issuer', env: ['KADDON_UI_OIDC_ISSUER'] },
  uiOidcClientId: { flag: 'ui-oidc-client-id', env: ['KADDON_UI_OIDC_CLIENT_ID'] },
  uiOidcClientSecret: { flag: 'ui-oidc-client-secret', env: ['KADDON_UI_OIDC_CLIENT_SECRET'] },
  uiOidcClientSecretFile: { flag: 'ui-oidc-client-secret-file', env: ['KADDON_UI_OIDC_CLIENT_SECRET_FILE'] },
  uiOidcRedirectUrl: { flag: 'ui-oidc-redirect-url', env: ['KADDON_UI_OIDC_REDIRECT_URL'] },
  uiOidcScopes: { flag: 'ui-oidc-scopes', env: ['KADDON_UI_OIDC_SCOPES'] },
  uiOidcUsernameClaim: { flag: 'ui-oidc-username-claim', env: ['KADDON_UI_OIDC_USERNAME_CLAIM'] },
  uiOidcUsernamePrefix: { flag: 'ui-oidc-username-prefix', env: ['KADDON_UI_OIDC_USERNAME_PREFIX'] },
  uiOidcGroupsClaim: { flag: 'ui-oidc-groups-claim', env: ['KADDON_UI_OIDC_GROUPS_CLAIM'] },
  uiOidcGroupsPrefix: { flag: 'ui-oidc-groups-prefix', env: ['KADDON_UI_OIDC_GROUPS_PREFIX'] },
  uiSessionKey: { flag: 'ui-session-key', env: ['KADDON_UI_SESSION_KEY'] },
  uiSessionKeyFile: { flag: 'ui-session-key-file', env: ['KADDON_UI_SESSION_KEY_FILE'] },
  uiSessionTtl: { flag: 'ui-session-ttl', env: ['KADDON_UI_SESSION_TTL'] },
  componentsPath: { flag: 'components-path', env: ['KADDON_COMPONENTS_PATH'] },
  // The Git source (README "The operator and Git"), checked by sources/git-source-config.ts.
  modulesGitUrl: { flag: 'git-url', env: ['MODULES_GIT_URL'] },
  modulesGitRef: { flag: 'git-ref', env: ['MODULES_GIT_REF'] },
  modulesGitSubpath: { flag: 'git-subpath', env: ['MODULES_GIT_SUBPATH'] },
  modulesGitPollInterval: { flag: 'git-poll-interval', env: ['MODULES_GIT_POLL_INTERVAL'] },
  modulesGitCacheDir: { flag: 'git-cache-dir', env: ['MODULES_GIT_CACHE_DIR'] },
  modulesGitUsername: { flag: 'git-username', env: ['MODULES_GIT_USERNAME'] },
  modulesGitPasswordFile: { flag: 'git-password-file', env: ['MODULES_GIT_PASSWORD_FILE'] },
  modulesGitTokenFile: { flag: 'git-token-file', env: ['MODULES_GIT_TOKEN_FILE'] },
  modulesGitSshKeyFile: { flag: 'git-ssh-key-file', env: ['MODULES_GIT_SSH_KEY_FILE'] },
  modulesGitKnownHostsFile: { flag: 'git-known-hosts-file', env: ['MODULES_GIT_KNOWN_HOSTS_FILE'] },
} as const satisfies Record<string, { readonly flag: string; readonly env: readonly string[] }>;

export type SettingKey = keyof typeof SETTINGS;

/**
 * addon-operator and shell-operator settings kaddon does not support. The operator logs a warning
 * naming each one that is set, so a Deployment moved to kaddon shows what it relied on.
 */
const UNSUPPORTED_SETTINGS: readonly { readonly names: readonly string[]; readonly why: string }[] = [
  {
    names: [
      'ADDON_OPERATOR_ADMISSION_SERVER_ENABLED',
      'ADDON_OPERATOR_ADMISSION_SERVER_LISTEN_PORT',
      'ADDON_OPERATOR_ADMISSION_SERVER_CERTS_DIR',
    ],
    why: 'there is no admission server (it has no routes in addon-operator either)',
  },
  { names: ['USE_NELM', 'NELM_DEPENDENCY_GRAPH_ENABLED'], why: 'kaddon delivers with the helm binary only' },
  { names: ['ADDON_OPERATOR_SHELL_CHROOT_DIR'], why: 'hooks do not run chrooted' },
  {
    names: ['ADDON_OPERATOR_APPLIED_MODULE_EXTENDERS'],
    why: 'module enabling always applies values files, global hooks, the ConfigMap, then enabled scripts',
  },
  {
    names: ['ADDON_OPERATOR_STRICT_CHECK_VALUES_MODE_ENABLED', 'STRICT_CHECK_VALUES_MODE_ENABLED'],
    why: 'a missing values.yaml is never an error',
  },
  { names: ['LOG_PROXY_HOOK_JSON'], why: "hook output is logged line by line as the hook's output" },
  { names: ['DEBUG_HTTP_SERVER_ADDR'], why: 'the debug API is served on DEBUG_UNIX_SOCKET only' },
  { names: ['DEBUG_KUBERNETES_API'], why: 'there is no client debug logging' },
  { names: ['TRACING_OTLP_ENDPOINT', 'TRACING_OTLP_AUTH_TOKEN'], why: 'there is no tracing' },
  {
    names: [
      'VALIDATING_WEBHOOK_CONFIGURATION_NAME',
      'VALIDATING_WEBHOOK_SERVICE_NAME',
      'VALIDATING_WEBHOOK_LISTEN_PORT',
      'CONVERSION_WEBHOOK_SERVICE_NAME',
      'CONVERSION_WEBHOOK_LISTEN_PORT',
    ],
    why: 'kubernetesValidating and kubernetesCustomResourceConversion bindings are not served',
  },
];

/** addon-operator refuses to start with these: Helm 2 is gone. kaddon does the same. */
export const HELM2_SETTINGS = [
  'HELM2',
  'TILLER_BIN_PATH',
  'TILLER_MAX_HISTORY',
  'ADDON_OPERATOR_TILLER_LISTEN_PORT',
  'ADDON_OPERATOR_TILLER_PROBE_LISTEN_PORT',
] as const;

/** One warning per unsupported setting that is set, e.g. `USE_NELM is not supported: …`. */
export function unsupportedSettingWarnings(env: Readonly<Record<string, string | undefined>>): string[] {
  return UNSUPPORTED_SETTINGS.flatMap(({ names, why }) =>
    names
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => `${name} is set but kaddon does not support it and ignores it: ${why}`),
  );
}
