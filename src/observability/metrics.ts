import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BUCKETS_1MS_TO_10S, METRIC_CATALOG, type MetricKey } from './metrics-catalog.ts';
import { familiesClash, type MetricFamilyName } from './metric-family-clash.ts';
import { metricLabelText } from './metric-label-text.ts';
import { PROCESS_METRIC_NAMES, registerProcessMetrics } from './process-metrics.ts';

type HookRunOutcome = 'success' | 'error' | 'allowed-error';

/** Labels of one hook run; `module` absent means a global hook. */
interface HookRunLabels {
  readonly hook: string;
  readonly binding: string;
  readonly activation: string;
  readonly queue: string;
  readonly module?: string | undefined;
}

/** What one hook run measured; the rusage fields are absent when the process never started. */
interface HookRunSample {
  readonly seconds: number;
  readonly outcome: HookRunOutcome;
  readonly userCpu?: number | undefined;
  readonly sysCpu?: number | undefined;
  readonly maxRssBytes?: number | undefined;
}

/** Labels of a binding's Kubernetes work; `module` absent means a global hook. */
export interface BindingLabels {
  readonly hook: string;
  readonly binding: string;
  readonly queue: string;
  readonly module?: string | undefined;
}

interface TaskLabels {
  readonly queue: string;
  readonly module?: string | undefined;
  readonly hook?: string | undefined;
  readonly binding?: string | undefined;
}

/** Runs `tick` every `ms` until the returned function is called. */
export type ScheduleEvery = (ms: number, tick: () => void) => () => void;

export const LIVE_TICK_MS = 10_000;

export interface OperatorMetricsOptions {
  /** ADDON_OPERATOR_PROMETHEUS_METRICS_PREFIX. */
  readonly prefix: string;
  /** QUEUE_ACTIONS_METRICS is not `no`: register tasks_queue_action_duration_seconds. */
  readonly queueActionsMetrics: boolean;
}

/** The verbs the operator records with; callers never touch prom-client. */
export interface OperatorMetrics {
  readonly registry: Registry;
  /** Whether `name` is a built-in metric's full name, so a hook cannot export it too. */
  isBuiltIn(name: string): boolean;
  /** Whether a hook's family would clash with a built-in one on /metrics (metric-family-clash.ts). */
  clashesWithBuiltIn(family: MetricFamilyName): boolean;
  bindingCount(hook: { hook: string; module?: string | undefined }, bindings: number): void;
  hookRun(labels: HookRunLabels, sample: HookRunSample): void;
  moduleDiscoverError(): void;
  /** Lines of one hook run's metrics file that were refused (docs/hooks.md "Metrics from hooks"). */
  hookMetricsRejected(hook: { hook: string; module?: string | undefined }, lines: number): void;
  moduleRunError(module: string): void;
  moduleDeleteError(module: string): void;
  /** The resource monitor found an object of the module's release deleted (`ns/Kind/name`). */
  absentResource(module: string, resource: string): void;
  /** The resource monitor found the module's release in a status other than deployed, or at a revision kaddon did not write. */
  helmReleaseRedeployed(module: string): void;
  moduleRun(module: string, seconds: number): void;
  moduleHelm(module: string, activation: string, seconds: number): void;
  helmOperation(labels: { module: string; activation: string; operation: string }, seconds: number): void;
  /** A helm call started: helm_operation_running_seconds shows its age until the returned function is called. */
  helmOperationStarted(module: string, operation: string): () => void;
  convergence(activation: string, seconds: number): void;
  queueLength(queue: string, length: number): void;
  taskWaited(labels: TaskLabels, seconds: number): void;
  /** A no-op when queue action metrics are disabled. */
  queueAction(queue: string, action: string, seconds: number): void;
  liveTick(): void;
  /** Ticks live_ticks every 10 s through `every`; returns the function that stops it. */
  startLiveTicks(every?: ScheduleEvery): () => void;
  jqFilter(labels: BindingLabels & { kind: string }, seconds: number): void;
  kubeEvent(labels: BindingLabels & { kind: string }, seconds: number): void;
  snapshot(labels: BindingLabels, size: { objects: number; bytes: number }): void;
  kubeRequestResult(labels: { code: string; method: string; host: string }): void;
  kubeRequestLatency(labels: { verb: string; url: string }, seconds: number): void;
  configValuesError(): void;
  moduleRender(module: string, seconds: number): void;
  unresolvedVarReferences(module: string, count: number): void;
  /** The modules repository revision in use; the previous one's series is dropped. */
  gitRevision(sha: string): void;
  /** ADDON_OPERATOR_HA: whether this process leads. */
  haLeader(leading: boolean): void;
  /** A module's Ready condition (docs/module-status.md); undefined drops its series. */
  moduleStatus(module: string, status: { ready: boolean; reason: string } | undefined): void;
  /** A notification message a channel took (docs/notifications.md). */
  notificationSent(channel: string): void;
  /** A failed try (`http`, `network`) or a dropped message (`budget`, `rejected`). */
  notificationFailed(channel: string, reason: string): void;
  /** 1 while in maintenance, 0 otherwise; undefined: the module is gone (docs/operations.md). */
  moduleMaintenance(module: string, on: boolean | undefined): void;
  gitSyncSucceeded(unixSeconds: number): void;
  gitSyncError(): void;
  /** Drifted objects found at the module's last check (docs/drift.md); undefined drops the series. */
  driftedObjects(module: string, count: number | undefined): void;
  driftCorrected(module: string, count: number): void;
  /** An object's corrections are spaced out: another writer keeps changing it back (docs/drift.md). */
  driftBackoff(module: string): void;
  /** Whether the config ConfigMap is deleted and its last config kept in force. */
  configMapMissing(missing: boolean): void;
  /** How many module uninstalls the prune guard holds now. */
  pruneHeld(count: number): void;
}

type Catalog = typeof METRIC_CATALOG;
type LabelOf<K extends MetricKey> = Catalog[K]['labels'][number];
type Instrument<K extends MetricKey> = Catalog[K]['type'] extends 'counter'
  ? Counter<LabelOf<K>>
  : Catalog[K]['type'] extends 'gauge'
    ? Gauge<LabelOf<K>>
    : Histogram<LabelOf<K>>;
type Instruments = { readonly [K in MetricKey]: Instrument<K> };

const everyWithNodeTimer: ScheduleEvery = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
};

/**
 * Registers every built-in metric in a registry of kaddon's own (docs/architecture.md "Dependencies": not the
 * global one).
 */
export function createOperatorMetrics(options: OperatorMetricsOptions): OperatorMetrics {
  const registry = new Registry();
  const keys = (Object.keys(METRIC_CATALOG) as MetricKey[]).filter(
    (key) => options.queueActionsMetrics || key !== 'tasksQueueActionSeconds',
  );
  const made = Object.fromEntries(keys.map((key) => [key, instrument(key, options.prefix, registry)]));
  const m = made as unknown as Instruments;
  registerProcessMetrics(registry);
  const builtIn: MetricFamilyName[] = [
    ...keys.map((key) => ({
      name: options.prefix + METRIC_CATALOG[key].name,
      type: METRIC_CATALOG[key].type,
    })),
    ...PROCESS_METRIC_NAMES.map((name) => ({ name, type: 'gauge' as const })),
  ];
  const names = new Set(builtIn.map((family) => family.name));
  /** Each module's module_status_reason series now, so that a new reason replaces it. */
  const statusReasons = new Map<string, string>();
  /** The helm calls running now and when each started; their ages are set at each scrape. */
  const runningHelm = new Map<string, { module: string; operation: string; since: number }>();
  // prom-client calls a gauge's `collect` before each scrape; the option is only typed for the constructor.
  (m.helmOperationRunning as { collect?: () => void }).collect = () => {
    const now = performance.now();
    for (const { module, operation, since } of runningHelm.values())
      m.helmOperationRunning.set({ module, operation }, (now - since) / 1000);
  };
  return {
    registry,
    isBuiltIn: (name) => names.has(name),
    clashesWithBuiltIn: (family) => builtIn.some((own) => familiesClash(family, own)),
    bindingCount({ hook, module }, bindings) {
      m.bindingCount.set({ module: module ?? '', hook: metricLabelText(hook) }, bindings);
    },
    hookRun(labels, sample) {
      recordHookRun(m, labels, sample);
    },
    moduleDiscoverError() {
      m.moduleDiscoverErrors.inc();
    },
    hookMetricsRejected({ hook, module }, lines) {
      m.hookMetricsRejected.inc({ module: module ?? '', hook: metricLabelText(hook) }, lines);
    },
    moduleRunError(module) {
      m.moduleRunErrors.inc({ module });
    },
    moduleDeleteError(module) {
      m.moduleDeleteErrors.inc({ module });
    },
    absentResource(module, resource) {
      m.modulesAbsentResources.inc({ module, resource });
    },
    helmReleaseRedeployed(module) {
      m.modulesHelmReleaseRedeployed.inc({ module });
    },
    moduleRun(module, seconds) {
      m.moduleRunSeconds.observe({ module }, seconds);
    },
    moduleHelm(module, activation, seconds) {
      m.moduleHelmSeconds.observe({ module, activation }, seconds);
    },
    helmOperation({ module, activation, operation }, seconds) {
      m.helmOperationSeconds.observe({ module, activation, operation }, seconds);
    },
    helmOperationStarted(module, operation) {
      const key = `${module}\0${operation}`;
      runningHelm.set(key, { module, operation, since: performance.now() });
      return () => {
        runningHelm.delete(key);
        m.helmOperationRunning.remove({ module, operation });
      };
    },
    convergence(activation, seconds) {
      m.convergenceSeconds.inc({ activation }, seconds);
      m.convergenceTotal.inc({ activation });
    },
    queueLength(queue, length) {
      m.tasksQueueLength.set({ queue: metricLabelText(queue) }, length);
    },
    taskWaited(labels, seconds) {
      m.taskWaitInQueueSeconds.inc(taskLabels(labels), seconds);
    },
    queueAction(queue, action, seconds) {
      if (options.queueActionsMetrics)
        m.tasksQueueActionSeconds.observe(
          { queue_name: metricLabelText(queue), queue_action: action },
          seconds,
        );
    },
    liveTick() {
      m.liveTicks.inc();
    },
    startLiveTicks(every = everyWithNodeTimer) {
      return every(LIVE_TICK_MS, () => {
        m.liveTicks.inc();
      });
    },
    jqFilter(labels, seconds) {
      m.kubeJqFilterSeconds.observe(kubeLabels(labels), seconds);
    },
    kubeEvent(labels, seconds) {
      m.kubeEventSeconds.observe(kubeLabels(labels), seconds);
    },
    snapshot(labels, size) {
      m.kubeSnapshotObjects.set(bindingLabels(labels), size.objects);
      m.kubeSnapshotBytes.set(bindingLabels(labels), size.bytes);
    },
    kubeRequestResult({ code, method, host }) {
      m.kubeClientRequestResults.inc({ code, method, host });
    },
    kubeRequestLatency({ verb, url }, seconds) {
      m.kubeClientRequestLatency.observe({ verb, url }, seconds);
    },
    configValuesError() {
      m.configValuesErrors.inc();
    },
    moduleRender(module, seconds) {
      m.moduleRenderSeconds.observe({ module }, seconds);
    },
    unresolvedVarReferences(module, count) {
      m.moduleUnresolvedVars.set({ module }, count);
    },
    haLeader(leading) {
      m.haLeader.set(leading ? 1 : 0);
    },
    moduleStatus(module, status) {
      const before = statusReasons.get(module);
      if (before !== undefined) m.moduleStatusReason.remove({ module, reason: before });
      statusReasons.delete(module);
      m.moduleReady.remove({ module });
      if (status === undefined) return;
      m.moduleReady.set({ module }, status.ready ? 1 : 0);
      m.moduleStatusReason.set({ module, reason: status.reason }, 1);
      statusReasons.set(module, status.reason);
    },
    notificationSent(channel) {
      m.notificationsSent.inc({ channel });
    },
    notificationFailed(channel, reason) {
      m.notificationsFailed.inc({ channel, reason });
    },
    moduleMaintenance(module, on) {
      if (on === undefined) m.moduleMaintenance.remove({ module });
      else m.moduleMaintenance.set({ module }, on ? 1 : 0);
    },
    driftedObjects(module, count) {
      if (count === undefined) m.moduleDriftedObjects.remove({ module });
      else m.moduleDriftedObjects.set({ module }, count);
    },
    driftCorrected(module, count) {
      m.moduleDriftCorrections.inc({ module }, count);
    },
    driftBackoff(module) {
      m.moduleDriftBackoffs.inc({ module });
    },
    configMapMissing(missing) {
      m.configMapMissing.set(missing ? 1 : 0);
    },
    pruneHeld(count) {
      m.pruneHeldModules.set(count);
    },
    gitRevision(sha) {
      m.gitRevisionInfo.reset();
      m.gitRevisionInfo.set({ revision: sha }, 1);
    },
    gitSyncSucceeded(unixSeconds) {
      m.gitLastSyncTime.set(unixSeconds);
    },
    gitSyncError() {
      m.gitSyncErrors.inc();
    },
  };
}

function instrument(key: MetricKey, prefix: string, registry: Registry): Counter | Gauge | Histogram {
  const { name, type, labels, help } = METRIC_CATALOG[key];
  const config = { name: prefix + name, help, labelNames: labels, registers: [registry] };
  if (type === 'counter') return new Counter(config);
  if (type === 'gauge') return new Gauge(config);
  return new Histogram({ ...config, buckets: BUCKETS_1MS_TO_10S });
}

function recordHookRun(m: Instruments, labels: HookRunLabels, sample: HookRunSample): void {
  const { module } = labels;
  const [hook, binding, activation, queue] = [
    labels.hook,
    labels.binding,
    labels.activation,
    labels.queue,
  ].map(metricLabelText) as [string, string, string, string];
  const run =
    module === undefined
      ? { labels: { hook, binding, activation, queue }, ...globalHookInstruments(m) }
      : { labels: { module, hook, binding, activation, queue }, ...moduleHookInstruments(m) };
  run.seconds.observe(run.labels, sample.seconds);
  run[sample.outcome].inc(run.labels);
  if (sample.userCpu !== undefined) run.userCpu.observe(run.labels, sample.userCpu);
  if (sample.sysCpu !== undefined) run.sysCpu.observe(run.labels, sample.sysCpu);
  if (sample.maxRssBytes !== undefined) run.maxRss.set(run.labels, sample.maxRssBytes);
}

type HookLabel = LabelOf<'moduleHookRunSeconds'>;

interface HookRunInstruments extends Record<HookRunOutcome, Counter<HookLabel>> {
  readonly seconds: Histogram<HookLabel>;
  readonly userCpu: Histogram<HookLabel>;
  readonly sysCpu: Histogram<HookLabel>;
  readonly maxRss: Gauge<HookLabel>;
}

// Global hooks have no module label: recordHookRun passes their instruments labels without one.
function globalHookInstruments(m: Instruments): HookRunInstruments {
  return {
    seconds: m.globalHookRunSeconds,
    success: m.globalHookRunSuccess,
    error: m.globalHookRunErrors,
    'allowed-error': m.globalHookRunAllowedErrors,
    userCpu: m.globalHookRunUserCpu,
    sysCpu: m.globalHookRunSysCpu,
    maxRss: m.globalHookRunMaxRss,
  };
}

function moduleHookInstruments(m: Instruments): HookRunInstruments {
  return {
    seconds: m.moduleHookRunSeconds,
    success: m.moduleHookRunSuccess,
    error: m.moduleHookRunErrors,
    'allowed-error': m.moduleHookRunAllowedErrors,
    userCpu: m.moduleHookRunUserCpu,
    sysCpu: m.moduleHookRunSysCpu,
    maxRss: m.moduleHookRunMaxRss,
  };
}

function bindingLabels(labels: BindingLabels): Record<'module' | 'hook' | 'binding' | 'queue', string> {
  return {
    module: labels.module ?? '',
    hook: metricLabelText(labels.hook),
    binding: metricLabelText(labels.binding),
    queue: metricLabelText(labels.queue),
  };
}

function kubeLabels(
  labels: BindingLabels & { kind: string },
): Record<'module' | 'hook' | 'binding' | 'queue' | 'kind', string> {
  return { ...bindingLabels(labels), kind: labels.kind };
}

function taskLabels(labels: TaskLabels): Record<'module' | 'hook' | 'binding' | 'queue', string> {
  return {
    module: labels.module ?? '',
    hook: metricLabelText(labels.hook ?? ''),
    binding: metricLabelText(labels.binding ?? ''),
    queue: metricLabelText(labels.queue),
  };
}
