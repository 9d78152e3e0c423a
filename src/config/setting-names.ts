/**
 * The environment variables each setting answers to, first name first: addon-operator's documented
 * name, the ADDON_OPERATOR_* name its current code reads, the SHELL_OPERATOR_* fallback, then
 * kaddon's own. `kaddon operator` and `kaddon build` read settings through this one table (the
 * settings table in README.md lists it for users).
 */
export const SETTING_NAMES = {
  modulesDir: ['MODULES_DIR', 'ADDON_OPERATOR_MODULES_DIR'],
  globalHooksDir: ['GLOBAL_HOOKS_DIR', 'ADDON_OPERATOR_GLOBAL_HOOKS_DIR', 'SHELL_OPERATOR_HOOKS_DIR'],
  unnumberedModulesOrder: [
    'UNNUMBERED_MODULE_ORDER',
    'UNNUMBERED_MODULES_ORDER',
    'ADDON_OPERATOR_UNNUMBERED_MODULES_ORDER',
  ],
  namespace: ['ADDON_OPERATOR_NAMESPACE', 'SHELL_OPERATOR_NAMESPACE'],
  configMap: ['ADDON_OPERATOR_CONFIG_MAP'],
  tmpDir: ['ADDON_OPERATOR_TMP_DIR', 'SHELL_OPERATOR_TMP_DIR'],
  listenAddress: ['ADDON_OPERATOR_LISTEN_ADDRESS', 'SHELL_OPERATOR_LISTEN_ADDRESS'],
  listenPort: ['ADDON_OPERATOR_LISTEN_PORT', 'SHELL_OPERATOR_LISTEN_PORT'],
  metricsPrefix: ['ADDON_OPERATOR_PROMETHEUS_METRICS_PREFIX', 'SHELL_OPERATOR_PROMETHEUS_METRICS_PREFIX'],
  helmPath: ['HELM_BIN_PATH', 'KADDON_HELM_PATH'],
  kubeconfig: ['KUBE_CONFIG', 'KUBECONFIG'],
  kubeContext: ['KUBE_CONTEXT'],
  kubeServer: ['KUBE_SERVER'],
  kubeClientQps: ['KUBE_CLIENT_QPS'],
  kubeClientBurst: ['KUBE_CLIENT_BURST'],
  monitorKubeClientQps: ['HELM_MONITOR_KUBE_CLIENT_QPS'],
  monitorKubeClientBurst: ['HELM_MONITOR_KUBE_CLIENT_BURST'],
  objectPatcherQps: ['OBJECT_PATCHER_KUBE_CLIENT_QPS'],
  objectPatcherBurst: ['OBJECT_PATCHER_KUBE_CLIENT_BURST'],
  objectPatcherTimeout: ['OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT'],
  hookEnv: ['KADDON_HOOK_ENV'],
  jqTimeout: ['KADDON_JQ_TIMEOUT'],
  helmTemplateTimeout: ['KADDON_HELM_TEMPLATE_TIMEOUT'],
  hookTimeout: ['KADDON_HOOK_TIMEOUT'],
  ha: ['ADDON_OPERATOR_HA'],
  haIdentity: ['ADDON_OPERATOR_POD'],
  haLeaseDuration: ['KADDON_HA_LEASE_DURATION'],
  haRenewDeadline: ['KADDON_HA_RENEW_DEADLINE'],
  haRetryPeriod: ['KADDON_HA_RETRY_PERIOD'],
  concurrentDeliveries: ['KADDON_CONCURRENT_DELIVERIES'],
  concurrentModuleRuns: ['KADDON_CONCURRENT_MODULE_RUNS'],
  healthTimeout: ['KADDON_HEALTH_TIMEOUT'],
  moduleFailurePolicy: ['KADDON_MODULE_FAILURE_POLICY'],
  moduleStatus: ['KADDON_MODULE_STATUS'],
  driftMode: ['KADDON_DRIFT_MODE'],
  driftInterval: ['KADDON_DRIFT_INTERVAL'],
  gitWebhookSecret: ['KADDON_GIT_WEBHOOK_SECRET'],
  gitWebhookSecretFile: ['KADDON_GIT_WEBHOOK_SECRET_FILE'],
} as const satisfies Record<string, readonly string[]>;

export type SettingKey = keyof typeof SETTING_NAMES;

/** The first of a setting's variables that is set (and not empty), with the name it was found under. */
export function findSetting(
  env: Readonly<Record<string, string | undefined>>,
  key: SettingKey,
): { readonly name: string; readonly value: string } | undefined {
  for (const name of SETTING_NAMES[key]) {
    const value = env[name];
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/**
 * addon-operator and shell-operator settings kaddon does not support. The operator logs a warning
 * naming each one that is set, so a Deployment moved to kaddon shows what it relied on.
 */
export const UNSUPPORTED_SETTINGS: readonly { readonly names: readonly string[]; readonly why: string }[] = [
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
