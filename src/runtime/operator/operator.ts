import type { ModuleDefinition } from '../../loader/modules-tree.ts';
import type { ConfigMapConfigStore } from '../../delivery/configmap-config-store.ts';
import type { ConfigMapWatch } from '../../delivery/configmap-watch.ts';
import type { ConfigValues } from '../../core/values.ts';
import { isConfigChanged } from '../../core/config-change.ts';
import { errorMessage } from '../../core/errors.ts';
import { MAIN_QUEUE, TaskQueueSet } from '../queue/task-queue-set.ts';
import { createTask, type AnyTask } from '../queue/task.ts';
import type { OperatorContext } from './operator-context.ts';
import type { DebugState } from '../../observability/debug/debug-state.ts';
import { createOperatorDebugState } from './operator-debug-state.ts';
import { createOperatorUiState, type OperatorUiStateOptions } from './operator-ui-state.ts';
import type { UiState } from '../../observability/ui/ui-state.ts';
import { createOperatorHandlers } from './operator-handlers.ts';
import { moduleRunTask } from './run-module.ts';
import { ALLOW_PRUNE_ANNOTATION } from './prune-guard.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { RECONCILE_REQUEST_ANNOTATION } from '../../delivery/module-crd.ts';
import type { Maintenance } from './module-controls.ts';

export interface OperatorOptions {
  readonly globalHooksDir: string | undefined;
  readonly configMap: ConfigMapConfigStore;
  /** The config values the store was opened with: the watch reports changes against them. */
  readonly initialConfig: ConfigValues;
  readonly onConverged: () => void;
}

/**
 * `kaddon operator`'s lifecycle (docs/lifecycle.md): global hooks loaded and onStartup run, then the
 * main queue converges the modules; ConfigMap changes become tasks of the same queue.
 */
export class Operator {
  readonly #ctx: OperatorContext;
  readonly #options: OperatorOptions;
  readonly #queues: TaskQueueSet;
  #watch: ConfigMapWatch | undefined;
  readonly #retries = new Map<string, () => void>();
  #stopping = false;
  #configMapSeen = false;

  constructor(ctx: OperatorContext, options: OperatorOptions) {
    this.#ctx = ctx;
    this.#options = options;
    this.#queues = new TaskQueueSet({
      observer: {
        onQueueLength: (queue, length) => {
          ctx.metrics.queueLength(queue, length);
        },
        onTaskWait: (task, waitMs) => {
          const { module, hook, bindings } = task.metadata;
          ctx.metrics.taskWaited(
            // Hook ids are `<module|global>/<hook>`; metrics name the hook as its runs do.
            {
              queue: task.queue,
              module,
              hook: hook?.slice(hook.indexOf('/') + 1),
              binding: bindings?.join(','),
            },
            waitMs / 1000,
          );
        },
        onQueueAction: (queue, action, seconds) => {
          ctx.metrics.queueAction(queue, action, seconds);
        },
      },
      handlers: createOperatorHandlers(ctx, {
        onConverged: options.onConverged,
        now: () => Date.now(),
        removeConvergeTasks: (keep) => {
          this.#queues.remove((task) => task.id !== keep && isConvergeTask(task), [MAIN_QUEUE]);
        },
        retryLater: (module, delayMs) => {
          this.#retryLater(module, delayMs);
        },
        addLast: (...tasks) => {
          this.#queues.addLast(...tasks);
        },
        isQueued: (type, module) =>
          this.#queues.find(type, (task) => module === undefined || task.metadata.module === module) !==
          undefined,
      }),
    });
    ctx.bindings.connect((task) => {
      this.#queues.addLast(task);
    });
    // The module status tracker hears every transition of the module records (docs/lifecycle.md
    // "Module states"), and runs a module waiting for another when that one turns Ready.
    if (ctx.status !== undefined) ctx.state.modules.listen(ctx.status);
    ctx.status?.onReady((module) => {
      this.#requirementReady(module);
    });
    ctx.controls?.listen({
      maintenanceStarted: (module, maintenance) => {
        this.#maintenanceStarted(module, maintenance);
      },
      maintenanceChanged: (module, maintenance) => {
        ctx.status?.maintenance(module, maintenance);
      },
      maintenanceEnded: (module, maintenance) => {
        this.#maintenanceEnded(module, maintenance);
      },
      reconcileRequested: (module, token) => {
        this.#reconcileRequested(module, token);
      },
    });
  }

  /**
   * Hands off (docs/operations.md): the resource monitor and drift check leave the module alone
   * until the end; runs skip its delivery and the ModuleDelete its uninstall.
   */
  #maintenanceStarted(module: string, maintenance: Maintenance): void {
    this.#ctx.resources?.pause(module);
    this.#ctx.status?.maintenance(module, maintenance);
    this.#ctx.logger.info('module in maintenance: not delivered, drift not corrected, not uninstalled', {
      module,
      hooks: maintenance.hooks,
    });
  }

  /**
   * Maintenance ended: the module's current desired state is delivered once, over any hand edit
   * (its release upgraded whatever its checksum), or its held uninstall runs.
   */
  #maintenanceEnded(module: string, maintenance: Maintenance): void {
    const ctx = this.#ctx;
    ctx.resources?.resume(module);
    ctx.status?.maintenance(module, undefined);
    ctx.logger.info('module maintenance ended: delivering the desired state', {
      module,
      seconds: Math.round((Date.now() - maintenance.since) / 1000),
    });
    if (!ctx.state.converged) return;
    if (ctx.state.modules.isEnabled(module)) {
      ctx.state.modules.takeOver(module);
      this.#runFirst(module, 'maintenance ended');
      return;
    }
    // A held uninstall (disabled, or gone from the tree) is a converge's to do, with the prune
    // guard's say (docs/lifecycle.md "Missing inputs and mass deletion").
    this.#reloadAll();
  }

  /**
   * Reconcile now (docs/operations.md): the module runs next, ahead of what the main queue holds;
   * the run answers the request in status.lastHandledReconcileAt. Before the first converge, its
   * run there answers it; a disabled module has nothing to run and is answered at once.
   */
  #reconcileRequested(module: string, token: string): void {
    const ctx = this.#ctx;
    ctx.logger.info('reconcile requested', { module, requestedAt: token });
    if (!ctx.state.converged) return;
    if (!ctx.state.modules.isEnabled(module)) {
      ctx.controls?.takeReconcileRequest(module);
      ctx.status?.reconcileHandled(module, token);
      return;
    }
    this.#runFirst(module, 'reconcile requested');
  }

  /** A ModuleRun of `module` at the head of the main queue, in place of one queued already. */
  #runFirst(module: string, event: string): void {
    this.#queues.remove(
      (task) => task.type === 'ModuleRun' && task.metadata.module === module && !task.payload.isReloadAll,
      [MAIN_QUEUE],
    );
    this.#queues.addFirst(moduleRunTask(module, event, Date.now()));
  }

  get queues(): TaskQueueSet {
    return this.#queues;
  }

  /**
   * docs/lifecycle.md step 15, "helm resources absent" (and a release found not deployed): the module
   * runs again and its release is upgraded whatever its checksum.
   */
  healModule(module: string): void {
    if (!this.#ctx.state.modules.isEnabled(module)) return;
    // docs/operations.md "Hands off": nothing of the module is put back while in maintenance.
    if (this.#ctx.controls?.isInMaintenance(module) === true) return;
    this.#ctx.state.modules.resourcesMissing(module);
    if (this.#queues.find('ModuleRun', (task) => task.metadata.module === module) !== undefined) return;
    this.#queues.addLast(moduleRunTask(module, 'AbsentHelmResourcesDetected', Date.now()));
  }

  /**
   * A delivery left running failed (docs/lifecycle.md "Overlapping delivery"): recorded as the
   * module's error, and the module runs again with its delivery awaited, so a failure is retried
   * with the queue's backoff as a run's would be. Inside a converge its end runs it.
   */
  deliveryFailed(module: string, error: unknown): void {
    const { state, logger, metrics } = this.#ctx;
    state.modules.failDelivery(module, error);
    metrics.moduleRunError(module);
    logger.error(`delivery of module ${module} failed: ${errorMessage(error)}`, { module });
    if (!state.modules.isEnabled(module)) return;
    if (this.#queues.find('ConvergeModules') !== undefined) return;
    if (this.#queues.find('ModuleRun', (task) => task.metadata.module === module) !== undefined) return;
    this.#queues.addLast(moduleRunTask(module, 'delivery failed', Date.now()));
  }

  /** What the status page reads (docs/ui.md). */
  uiState(options: Omit<OperatorUiStateOptions, 'ctx' | 'debug'>): UiState {
    return createOperatorUiState({ ...options, ctx: this.#ctx, debug: this.debugState() });
  }

  /** What the debug socket reads. */
  debugState(): DebugState {
    return createOperatorDebugState(this.#ctx, this.#queues);
  }

  /**
   * docs/lifecycle.md steps 1–8, then events (step 16): queues the start-up work and follows the ConfigMap.
   */
  start(): void {
    // docs/lifecycle.md steps 1–2 as tasks (LoadGlobalHooks queues onStartup runs and the kubernetes
    // bindings' Synchronization at the head), then the first converge; a failure is retried.
    const now = Date.now();
    this.#queues.addLast(
      createTask(
        'LoadGlobalHooks',
        { queue: MAIN_QUEUE, payload: { globalHooksDir: this.#options.globalHooksDir } },
        now,
      ),
      createTask('ConvergeModules', { queue: MAIN_QUEUE, payload: { event: 'OperatorStartup' } }, now),
    );
    this.#queues.start();
    this.#watch = this.#options.configMap.watch(
      (config, change) => {
        if (!isConfigChanged(change)) return;
        this.#ctx.state.pendingConfig = config;
        this.#ctx.logger.info('ConfigMap changed', { modules: change.modulesChanged.join(',') });
        this.#queues.addLast(
          createTask('ApplyKubeConfigValues', { queue: MAIN_QUEUE, payload: {} }, Date.now()),
        );
      },
      {
        known: this.#options.initialConfig,
        // An edit the values schemas refuse is reported and ignored, never queued to fail forever.
        validate: (config) => {
          this.#ctx.store.checkConfig(config);
        },
        onInvalid: () => {
          this.#ctx.metrics.configValuesError();
        },
        onObject: (configMap) => {
          this.#allowPrune(annotationOf(configMap, ALLOW_PRUNE_ANNOTATION));
          this.#treeReconcile(annotationOf(configMap, RECONCILE_REQUEST_ANNOTATION));
        },
      },
    );
    this.#ctx.modulesSource?.follow(() => {
      this.#queueTreeSwitch();
    });
  }

  /**
   * The ConfigMap's confirmation of held uninstalls (docs/lifecycle.md "Missing inputs and mass
   * deletion"): naming the held id, it reloads all modules, whose converge then uninstalls them.
   */
  #allowPrune(value: string | undefined): void {
    const state = this.#ctx.state;
    if (state.allowPrune === value) return;
    state.allowPrune = value;
    if (value === undefined || state.pruneHold?.id !== value) return;
    this.#ctx.logger.info('held uninstalls confirmed by annotation', { id: value });
    this.#reloadAll();
  }

  /**
   * The whole tree now (docs/operations.md "Reconcile now"): the ConfigMap's reconcile annotation
   * fetches the Git source at once, or reloads all modules when the tree is not from Git. The
   * value first seen at start is taken as answered.
   */
  #treeReconcile(value: string | undefined): void {
    const state = this.#ctx.state;
    const first = !this.#configMapSeen;
    this.#configMapSeen = true;
    if (state.treeReconcileRequest === value) return;
    state.treeReconcileRequest = value;
    if (value === undefined || first) return;
    this.#ctx.logger.info('reconcile of the whole tree requested', { requestedAt: value });
    const source = this.#ctx.modulesSource;
    if (source !== undefined) source.requestSync();
    else this.#reloadAll();
  }

  /**
   * A ReloadAllModules converge at the tail, unless one is queued that has not started: a converge
   * past its start (its AfterAll phase queued) has held or decided its uninstalls already, so
   * another one is due.
   */
  #reloadAll(): void {
    if (this.#queues.find('ConvergeModules', (task) => task.payload.phase === undefined) !== undefined)
      return;
    this.#queues.addLast(
      createTask(
        'ConvergeModules',
        { queue: MAIN_QUEUE, payload: { event: 'ReloadAllModules' } },
        Date.now(),
      ),
    );
  }

  /** A newer validated tree from Git: one switch task at a time, which takes the newest. */
  #queueTreeSwitch(): void {
    if (this.#queues.find('SwitchModulesTree') !== undefined) return;
    const revision = this.#ctx.modulesSource?.next()?.revision;
    this.#queues.addLast(
      createTask(
        'SwitchModulesTree',
        { queue: MAIN_QUEUE, payload: {}, metadata: { event: `git revision ${revision ?? ''}` } },
        Date.now(),
      ),
    );
  }

  /** Graceful stop: no new tasks, the running handler is aborted and awaited, watches stopped. */
  /** The module definition in the tree in use. */
  moduleDefinition(name: string): ModuleDefinition | undefined {
    return this.#ctx.tree.modules.find((module) => module.name === name);
  }

  /** Modules that wait for `ready` (module.yaml requirements, docs/modules.md) run now. */
  #requirementReady(ready: string): void {
    for (const module of this.#ctx.tree.modules) {
      if (!module.requires.includes(ready) || !this.#ctx.state.modules.isEnabled(module.name)) continue;
      if (this.#ctx.status?.record(module.name)?.waitingFor === undefined) continue;
      if (this.#queues.find('ModuleRun', (task) => task.metadata.module === module.name) !== undefined)
        continue;
      this.#queues.addLast(moduleRunTask(module.name, `required module ${ready} is Ready`, Date.now()));
    }
  }

  /** A ModuleRun of `module` at the tail after `delayMs`, unless one is queued by then. */
  #retryLater(module: string, delayMs: number): void {
    this.#retries.get(module)?.();
    const cancel = this.#queues.clock.setTimer(() => {
      this.#retries.delete(module);
      if (this.#stopping || !this.#ctx.state.modules.isEnabled(module)) return;
      if (this.#queues.find('ModuleRun', (task) => task.metadata.module === module) !== undefined) return;
      this.#queues.addLast(moduleRunTask(module, 'retry after failure', Date.now()));
    }, delayMs);
    this.#retries.set(module, cancel);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    for (const cancel of this.#retries.values()) cancel();
    this.#retries.clear();
    await this.#ctx.modulesSource?.stop();
    await this.#watch?.stop();
    await this.#queues.stop();
    // Runs and helm calls left running finish, or are ended by kaddon's stop signal.
    await this.#ctx.moduleRuns?.settle();
    await this.#ctx.deliveries?.settle();
    await this.#ctx.bindings.stop();
  }
}

/** An annotation of a ConfigMap object, when set and not empty. */
function annotationOf(configMap: JsonObject, name: string): string | undefined {
  const metadata = isJsonObject(configMap.metadata) ? configMap.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const value = annotations[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Tasks a converge queues (docs/lifecycle.md "Tasks and queues" `IsConvergeTask`): a newer converge replaces
 * them.
 */
function isConvergeTask(task: AnyTask): boolean {
  switch (task.type) {
    case 'ConvergeModules':
    case 'ModuleDelete':
    case 'ModulePurge':
      return true;
    case 'ModuleRun':
      return task.payload.isReloadAll;
    default:
      return false;
  }
}
