import { existsSync } from 'node:fs';
import type { ConfigValues } from '../../core/values.ts';
import { ConfigMapConfigStore } from '../../delivery/configmap-config-store.ts';
import { EventRecorder } from '../../delivery/event-recorder.ts';
import { loadModulesTree } from '../../loader/modules-tree.ts';
import { loadTreeSchemas } from '../../loader/values-schemas.ts';
import type { ApplyApi } from '../../delivery/drift/release-objects.ts';
import type { DebugServer } from '../../observability/debug/debug-server.ts';
import { startingDebugState } from '../../observability/debug/debug-starting-state.ts';
import type { OperatorHttpServer } from '../../observability/http-server.ts';
import type { Logger } from '../../observability/logger.ts';
import { packageVersion } from '../../observability/ui/ui-package.ts';
import type { UiState } from '../../observability/ui/ui-state.ts';
import type { GitSourceConfig } from '../../sources/git-source-config.ts';
import { componentRoots } from '../build/component-roots.ts';
import type { LeaderElector } from '../leader-election.ts';
import { ValuesStore } from '../values-store.ts';
import type { OperatorContext } from './operator-context.ts';
import { OperatorGitSource } from './operator-git-source.ts';
import { STANDBY, standByForLease, stopReason, stopWithGrace } from './operator-lifecycle.ts';
import {
  wireOperatorParts,
  type OperatorBase,
  type OperatorParts,
  type OperatorPartsSettings,
  type OperatorTree,
} from './operator-parts.ts';
import { treeValues } from './prepare-modules-tree.ts';

/** /metrics, /healthz, /readyz, the Git webhook and the debug socket: built, listening once started. */
export interface OperatorEndpoints {
  readonly http: OperatorHttpServer;
  readonly debug: DebugServer;
  /** DEBUG_UNIX_SOCKET, for the log. */
  readonly debugSocket: string;
  /** What the debug state says before the operator runs. */
  readonly starting: string;
  /** Assigned once this process may act; the debug state and the Git webhook ask it from the start. */
  git: OperatorGitSource | undefined;
  /** Assigned once the operator runs: until then the status page answers 503. */
  ui: UiState | undefined;
  /** The status page's own API client, apart from the operator's (docs/ui.md "Limits"). */
  readonly uiApi: ApplyApi;
  stop(): Promise<void>;
}

/** The settings the start sequence reads; the names are OperatorConfig's (the README's settings table). */
interface OperatorProcessSettings extends OperatorPartsSettings {
  readonly ha: boolean;
  readonly haLeaseDurationMs: number;
  readonly haRenewDeadlineMs: number;
  readonly haRetryPeriodMs: number;
  readonly modulesDirs: readonly string[];
  readonly globalHooksDir: string;
  readonly unnumberedModulesOrder: number;
}

export interface OperatorProcess {
  readonly settings: OperatorProcessSettings;
  readonly base: OperatorBase;
  readonly endpoints: OperatorEndpoints;
  /** MODULES_GIT_*: read once this process may act; none: MODULES_DIR on disk. */
  readonly gitSource: (() => GitSourceConfig) | undefined;
  /** Builds the release engine once the operator is about to run. */
  readonly helm: () => OperatorContext['helm'];
  /** Starts listening for SIGTERM/SIGINT; resolves with the first one's name. */
  readonly waitForStop: () => Promise<string>;
  /** performance.now() when the command started, for the start-up time logged at the first convergence. */
  readonly startedAt: number;
}

/**
 * `kaddon operator`'s start and stop (docs/lifecycle.md "Start-up", "Stopping" under "Tasks and
 * queues", "High availability"): the endpoints listen before the cluster is asked, so a debug socket
 * or port that cannot be served stops the operator at once; then the sequence of serveOperator.
 * Resolves after SIGTERM/SIGINT or a lost lease has been handled.
 */
export async function runOperatorProcess(run: OperatorProcess): Promise<void> {
  await startEndpoints(run);
  try {
    await serveOperator(run);
  } catch (error: unknown) {
    // The listening servers would keep the process alive after the error is reported.
    await run.endpoints.stop();
    throw error;
  } finally {
    exitIfStillRunning(run.base.logger);
  }
}

async function startEndpoints({ settings, base, endpoints }: OperatorProcess): Promise<void> {
  const { logger } = base;
  endpoints.debug.serve(
    startingDebugState(settings.ha ? STANDBY : endpoints.starting, () => endpoints.git?.status()),
  );
  try {
    await endpoints.debug.start();
    logger.info('debug socket listening', { socket: endpoints.debugSocket });
    const bound = await endpoints.http.start();
    logger.info('listening', { address: bound.address, port: bound.port });
  } catch (error: unknown) {
    await endpoints.stop();
    throw error;
  }
}

/**
 * After the endpoints listen: the ConfigMap is read, a standby waits for the leader lease, the
 * first modules tree is awaited, then the operator runs until told to stop, and stops in order.
 */
async function serveOperator(run: OperatorProcess): Promise<void> {
  const { settings, base, endpoints } = run;
  const { logger } = base;
  const { events, configMap } = configMapStore(run);
  const initialConfig = await configMap.load();
  const stopping = run.waitForStop();
  const elector = await lead(run, stopping);
  if (settings.ha && elector === undefined) {
    logger.info('stopping while standing by');
    await endpoints.stop();
    return;
  }
  const git = gitSource(run, initialConfig);
  endpoints.git = git;
  const first = git
    ? await Promise.race([git.start(), stopping.then(() => undefined)])
    : localModulesTree(settings);
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
  const parts = await wireOperatorParts(settings, base, {
    first,
    store,
    configMap,
    initialConfig,
    git,
    helm: run.helm(),
    readiness: endpoints.http,
    startedAt: run.startedAt,
    events,
  });
  startParts(parts, run);
  await stopInOrder(run, { parts, events, elector, reason: await stopReason(stopping, elector?.lost) });
}

/** The ConfigMap, and the Events about the operator's own inputs (a deleted ConfigMap, held uninstalls) in its namespace. */
function configMapStore({ settings, base }: OperatorProcess): {
  readonly events: EventRecorder;
  readonly configMap: ConfigMapConfigStore;
} {
  const { logger, metrics, kube } = base;
  const events = new EventRecorder(kube, logger, { instance: `kaddon-${settings.haIdentity}` });
  const configMap = new ConfigMapConfigStore(kube, settings.namespace, settings.configMapName, {
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
  return { events, configMap };
}

/** MODULES_GIT_*: the Git source, once this process may act; none without it. */
function gitSource(
  { settings, base, gitSource }: OperatorProcess,
  initialConfig: ConfigValues,
): OperatorGitSource | undefined {
  const { logger, metrics } = base;
  return gitSource
    ? new OperatorGitSource({
        config: gitSource(),
        jq: base.jq,
        runDeps: base.runDeps,
        unnumberedOrder: settings.unnumberedModulesOrder,
        logger,
        metrics,
        initialConfig,
      })
    : undefined;
}

/**
 * The stop order (docs/lifecycle.md "Stopping"; the lease: "High availability"): the operator with
 * its grace, what runs beside it, the Events, the lease, the endpoints last.
 */
async function stopInOrder(
  { base, endpoints }: OperatorProcess,
  {
    parts,
    events,
    elector,
    reason,
  }: {
    readonly parts: OperatorParts;
    readonly events: EventRecorder;
    readonly elector: LeaderElector | undefined;
    readonly reason: string;
  },
): Promise<void> {
  await stopWithGrace({
    reason,
    stop: () => parts.operator.stop(),
    endHooks: () => {
      base.hooksStop.abort();
    },
    logger: base.logger,
  });
  await stopParts(parts);
  events.stop();
  // A clean stop hands the lease over at once, so a rolling update takes seconds, not a lease period.
  await elector?.release();
  base.metrics.haLeader(false);
  await endpoints.stop();
}

/**
 * ADDON_OPERATOR_HA: nothing acts (hooks, queues, Git polling, delivery) until this process leads;
 * undefined when stopped while standing by. Without it the one process acts at once.
 */
async function lead(
  { settings, base, endpoints }: OperatorProcess,
  stopping: Promise<string>,
): Promise<LeaderElector | undefined> {
  const { metrics, logger } = base;
  if (!settings.ha) {
    // It leads, for the alert on no leader (docs/monitoring.md).
    metrics.haLeader(true);
    return undefined;
  }
  // A client of its own: a renew never waits in the rate limit behind the operator's other requests.
  const elector = await standByForLease(
    base.client(LEASE_CLIENT_QPS, LEASE_CLIENT_BURST),
    {
      namespace: settings.namespace,
      identity: settings.haIdentity,
      leaseDurationMs: settings.haLeaseDurationMs,
      renewDeadlineMs: settings.haRenewDeadlineMs,
      retryPeriodMs: settings.haRetryPeriodMs,
    },
    { readiness: endpoints.http, metrics, logger, stopping },
  );
  if (elector !== undefined)
    endpoints.debug.serve(startingDebugState(endpoints.starting, () => endpoints.git?.status()));
  return elector;
}

/** The lease client's rate limit: a renew is two requests a retry period. */
const LEASE_CLIENT_QPS = 5;
const LEASE_CLIENT_BURST = 10;

/** The debug socket and the status page answer from the operator, which starts, then the resource monitor. */
function startParts(
  { operator, resources, eventLog }: OperatorParts,
  { base, endpoints }: OperatorProcess,
): void {
  endpoints.debug.serve(operator.debugState());
  endpoints.ui = operator.uiState({
    api: endpoints.uiApi,
    events: eventLog,
    mask: (text) => base.secrets.mask(text),
    version: packageVersion(),
    startedAt: Date.now() - process.uptime() * 1000,
  });
  operator.start();
  resources.start();
}

/** What runs beside the operator stops after it: the drift trigger, the resource monitor, the module status. */
async function stopParts({ driftTrigger, resources, moduleStatus, notifier }: OperatorParts): Promise<void> {
  driftTrigger?.stop();
  await resources.stop();
  await moduleStatus.stop();
  await notifier?.stop();
}

/** MODULES_DIR and GLOBAL_HOOKS_DIR as they are on disk, when no Git source is set. */
function localModulesTree(settings: OperatorProcessSettings): OperatorTree {
  const tree = loadModulesTree(settings.modulesDirs, { unnumberedOrder: settings.unnumberedModulesOrder });
  const globalHooksDir = existsSync(settings.globalHooksDir) ? settings.globalHooksDir : undefined;
  return {
    tree,
    schemas: loadTreeSchemas(tree, globalHooksDir),
    globalHooksDir,
    sharedComponentRoots: componentRoots(undefined, settings.modulesDirs),
  };
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
