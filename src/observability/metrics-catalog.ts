/**
 * Every built-in metric kaddon exports, in one place (docs/architecture.md "House style"): the name after the
 * prefix (ADDON_OPERATOR_PROMETHEUS_METRICS_PREFIX, default `addon_operator_`), the type and the label names.
 * Names and labels are addon-operator's documented ones (docs/observability.md "Metrics"); where the current
 * addon-operator code names them differently (`*_hook_errors_total`, `modules_discover_errors_total`,
 * `module_run_seconds{module,activation}`) the documentation wins. The last block is kaddon's own.
 */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricSpec {
  readonly name: string;
  readonly type: MetricKind;
  readonly labels: readonly string[];
  readonly help: string;
}

/** addon-operator's `buckets_1msTo10s`, used by every built-in histogram. */
export const BUCKETS_1MS_TO_10S = [0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];

const GLOBAL_HOOK = ['hook', 'binding', 'activation', 'queue'] as const;
const MODULE_HOOK = ['module', 'hook', 'binding', 'activation', 'queue'] as const;
const KUBE = ['module', 'hook', 'binding', 'queue', 'kind'] as const;
const SNAPSHOT = ['module', 'hook', 'binding', 'queue'] as const;

function spec<const T extends MetricKind, const L extends readonly string[]>(
  name: string,
  type: T,
  labels: L,
  help: string,
): { name: string; type: T; labels: L; help: string } {
  return { name, type, labels, help };
}

// One line per metric, read as a table.
// prettier-ignore
export const METRIC_CATALOG = {
  bindingCount: spec('binding_count', 'gauge', ['module', 'hook'], 'Bindings of each hook; empty module for global hooks.'),
  configValuesErrors: spec('config_values_errors_total', 'counter', [], 'ConfigMap values that failed validation.'),

  globalHookRunSeconds: spec('global_hook_run_seconds', 'histogram', GLOBAL_HOOK, 'Global hook run time.'),
  globalHookRunErrors: spec('global_hook_run_errors_total', 'counter', GLOBAL_HOOK, 'Failed global hook runs without allowFailure.'),
  globalHookRunAllowedErrors: spec('global_hook_run_allowed_errors_total', 'counter', GLOBAL_HOOK, 'Failed global hook runs with allowFailure.'),
  globalHookRunSuccess: spec('global_hook_run_success_total', 'counter', GLOBAL_HOOK, 'Successful global hook runs.'),
  globalHookRunSysCpu: spec('global_hook_run_sys_cpu_seconds', 'histogram', GLOBAL_HOOK, 'Global hook system CPU seconds.'),
  globalHookRunUserCpu: spec('global_hook_run_user_cpu_seconds', 'histogram', GLOBAL_HOOK, 'Global hook user CPU seconds.'),
  globalHookRunMaxRss: spec('global_hook_run_max_rss_bytes', 'gauge', GLOBAL_HOOK, 'Global hook maximum resident set size in bytes.'),

  moduleHookRunSeconds: spec('module_hook_run_seconds', 'histogram', MODULE_HOOK, 'Module hook run time.'),
  moduleHookRunErrors: spec('module_hook_run_errors_total', 'counter', MODULE_HOOK, 'Failed module hook runs without allowFailure.'),
  moduleHookRunAllowedErrors: spec('module_hook_run_allowed_errors_total', 'counter', MODULE_HOOK, 'Failed module hook runs with allowFailure.'),
  moduleHookRunSuccess: spec('module_hook_run_success_total', 'counter', MODULE_HOOK, 'Successful module hook runs.'),
  moduleHookRunSysCpu: spec('module_hook_run_sys_cpu_seconds', 'histogram', MODULE_HOOK, 'Module hook system CPU seconds.'),
  moduleHookRunUserCpu: spec('module_hook_run_user_cpu_seconds', 'histogram', MODULE_HOOK, 'Module hook user CPU seconds.'),
  moduleHookRunMaxRss: spec('module_hook_run_max_rss_bytes', 'gauge', MODULE_HOOK, 'Module hook maximum resident set size in bytes.'),

  moduleDiscoverErrors: spec('module_discover_errors_total', 'counter', [], 'Errors while discovering enabled modules.'),
  moduleRunErrors: spec('module_run_errors_total', 'counter', ['module'], 'Failed module runs.'),
  moduleDeleteErrors: spec('module_delete_errors_total', 'counter', ['module'], 'Failed module deletions.'),
  modulesAbsentResources: spec('modules_absent_resources_total', 'counter', ['module', 'resource'], 'Objects of a release the resource monitor found deleted from the cluster (resource: ns/Kind/name).'),
  modulesHelmReleaseRedeployed: spec('modules_helm_release_redeployed_total', 'counter', ['module'], 'Releases the resource monitor found in a status other than deployed, or at a revision kaddon did not write.'),
  moduleRunSeconds: spec('module_run_seconds', 'histogram', ['module'], 'Module run time.'),
  moduleHelmSeconds: spec('module_helm_seconds', 'histogram', ['module', 'activation'], 'Time of the helm step of a module run.'),
  helmOperationSeconds: spec('helm_operation_seconds', 'histogram', ['module', 'activation', 'operation'], 'Time of each helm operation.'),

  convergenceSeconds: spec('convergence_seconds', 'counter', ['activation'], 'Seconds spent converging all modules.'),
  convergenceTotal: spec('convergence_total', 'counter', ['activation'], 'Convergences of all modules.'),
  tasksQueueLength: spec('tasks_queue_length', 'gauge', ['queue'], 'Tasks waiting in each queue.'),
  taskWaitInQueueSeconds: spec('task_wait_in_queue_seconds_total', 'counter', ['module', 'hook', 'binding', 'queue'], 'Seconds tasks waited in a queue before they started.'),
  tasksQueueActionSeconds: spec('tasks_queue_action_duration_seconds', 'histogram', ['queue_name', 'queue_action'], 'Time of low-level queue operations.'),
  liveTicks: spec('live_ticks', 'counter', [], 'Increases every 10 seconds while the operator is alive.'),

  kubeJqFilterSeconds: spec('kube_jq_filter_duration_seconds', 'histogram', KUBE, 'Time of jqFilter runs on Kubernetes objects.'),
  kubeEventSeconds: spec('kube_event_duration_seconds', 'histogram', KUBE, 'Time to handle a Kubernetes event.'),
  kubeSnapshotObjects: spec('kube_snapshot_objects', 'gauge', SNAPSHOT, 'Objects cached in the snapshot of a binding.'),
  kubeSnapshotBytes: spec('kube_snapshot_bytes', 'gauge', SNAPSHOT, 'JSON bytes cached in the snapshot of a binding.'),
  kubeClientRequestResults: spec('kubernetes_client_request_result_total', 'counter', ['code', 'method', 'host'], 'Kubernetes API requests by result.'),
  kubeClientRequestLatency: spec('kubernetes_client_request_latency_seconds', 'histogram', ['verb', 'url'], 'Kubernetes API request latency.'),

  // kaddon's own: the kustomize-style build of a module.
  moduleRenderSeconds: spec('module_render_seconds', 'histogram', ['module'], 'Time to render the manifests of a module.'),
  moduleUnresolvedVars: spec('module_unresolved_var_references', 'gauge', ['module'], 'Unresolved $(var) references left in the last render of a module.'),

  // kaddon's own: helm calls under way, so that a hanging one is named (docs/lifecycle.md "Failure isolation").
  helmOperationRunning: spec('helm_operation_running_seconds', 'gauge', ['module', 'operation'], 'Age of each helm call running now.'),

  // kaddon's own: module status (docs/module-status.md).
  moduleReady: spec('module_ready', 'gauge', ['module'], '1 while the module is Ready (delivered and healthy), 0 otherwise.'),
  moduleStatusReason: spec('module_status_reason', 'gauge', ['module', 'reason'], "1 for the reason of the module's Ready condition now."),
  notificationsSent: spec('notifications_sent_total', 'counter', ['channel'], 'Notification messages a channel took (docs/notifications.md).'),
  notificationsFailed: spec('notification_failures_total', 'counter', ['channel', 'reason'], 'Notification tries that failed (http, network) and messages dropped (budget, rejected).'),
  moduleMaintenance: spec('module_maintenance', 'gauge', ['module'], '1 while the module is in maintenance: not delivered, drift not corrected, not uninstalled (docs/operations.md).'),

  // kaddon's own: drift (docs/drift.md).
  moduleDriftedObjects: spec('module_drifted_objects', 'gauge', ['module'], "Objects of the module's release found changed or deleted outside kaddon at its last drift check."),
  moduleDriftCorrections: spec('module_drift_corrections_total', 'counter', ['module'], 'Drifted objects put back as delivered (KADDON_DRIFT_MODE=correct).'),
  moduleDriftBackoffs: spec('module_drift_correction_backoffs_total', 'counter', ['module'], 'Times another writer kept changing back an object kaddon corrected, so that its corrections were spaced out.'),

  // kaddon's own: what hooks wrote to $METRICS_PATH and kaddon refused (docs/hooks.md "Metrics from hooks").
  hookMetricsRejected: spec('hook_metrics_rejected_total', 'counter', ['module', 'hook'], 'Lines of a hook\'s metrics file refused: not valid, or clashing with another metric.'),

  // kaddon's own: missing inputs and mass deletion (docs/lifecycle.md).
  configMapMissing: spec('config_map_missing', 'gauge', [], '1 while the config ConfigMap is deleted and its last config stays in force, 0 otherwise.'),
  pruneHeldModules: spec('prune_held_modules', 'gauge', [], 'Module uninstalls the prune guard holds until they are confirmed (KADDON_PRUNE_GUARD_PERCENT).'),

  // kaddon's own: leader election (ADDON_OPERATOR_HA).
  haLeader: spec('ha_leader', 'gauge', [], '1 while this process holds the leader lease, 0 on standby.'),

  // kaddon's own: the modules tree synced from Git.
  gitRevisionInfo: spec('git_revision_info', 'gauge', ['revision'], 'The modules repository revision in use: 1 for that revision.'),
  gitLastSyncTime: spec('git_last_successful_sync_timestamp_seconds', 'gauge', [], 'Unix time of the last sync that left the remote revision in use.'),
  gitSyncErrors: spec('git_sync_errors_total', 'counter', [], 'Syncs of the modules repository that failed or refused a revision.'),
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRIC_CATALOG;
