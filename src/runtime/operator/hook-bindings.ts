import type { SecretMask } from '../../core/secret-mask.ts';
import type { Snapshots } from '../../hooks/binding-context.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { Logger } from '../../observability/logger.ts';
import type { KubeBindingMetrics } from '../kube-monitors/binding-metrics.ts';
import type { KubeBindingTask } from '../kube-monitors/kube-binding-task.ts';
import { KubeMonitors } from '../kube-monitors/kube-monitors.ts';
import type { WatchApi } from '../../delivery/list-watch.ts';
import type { LoadedHook } from '../lifecycle-hooks.ts';
import { describeTask } from '../queue/task-description.ts';
import { MAIN_QUEUE } from '../queue/task-queue-set.ts';
import { createTask, type HookRunTask } from '../queue/task.ts';
import { ScheduleBindings, type ScheduleRun, type ScheduleTick } from '../schedule-bindings.ts';
import { hookId } from './hook-registry.ts';

interface BoundHook {
  readonly hook: LoadedHook;
  readonly module: string | undefined;
}

export interface HookBindingsOptions {
  readonly api: WatchApi;
  readonly jq: JqEngine;
  readonly logger: Logger;
  /** kube_jq_filter_duration_seconds, kube_event_duration_seconds, kube_snapshot_*: OperatorMetrics. */
  readonly metrics?: KubeBindingMetrics | undefined;
  readonly secrets?: SecretMask | undefined;
}

/**
 * The kubernetes and schedule bindings of the started hooks (docs/lifecycle.md steps 2, 5, 9, 10), turned
 * into GlobalHookRun / ModuleHookRun tasks for the queues `connect` gives.
 */
export class HookBindings {
  readonly #monitors: KubeMonitors;
  readonly #schedules: ScheduleBindings;
  readonly #logger: Logger;
  readonly #hooks = new Map<string, BoundHook>();
  #sink: (task: HookRunTask) => void = () => undefined;
  /** Hooks being started: their Synchronization tasks are returned to the starter, not queued. */
  readonly #starting = new Set<string>();
  #captured: KubeBindingTask[] = [];

  constructor(options: HookBindingsOptions) {
    this.#logger = options.logger;
    this.#monitors = new KubeMonitors({
      api: options.api,
      jq: options.jq,
      logger: options.logger,
      metrics: options.metrics,
      secrets: options.secrets,
      onTask: (task) => {
        this.#onKubeTask(task);
      },
    });
    this.#schedules = new ScheduleBindings({
      logger: options.logger,
      onTick: (tick) => {
        this.#onTick(tick);
      },
    });
  }

  /** Where tasks from watch events and schedule ticks go. */
  connect(sink: (task: HookRunTask) => void): void {
    this.#sink = sink;
  }

  /** The current snapshots of a hook's kubernetes bindings; empty ones when it is not monitored. */
  snapshots(module: string | undefined, hook: LoadedHook): Snapshots {
    return (
      this.#monitors.hook(hookId(module, hook))?.snapshots() ??
      Object.fromEntries(hook.config.kubernetes.map((binding) => [binding.name, []]))
    );
  }

  /** Every started hook with kubernetes bindings, with its snapshots (debug `hook snapshots`). */
  allSnapshots(): { hook: LoadedHook; module: string | undefined; snapshots: Snapshots }[] {
    return [...this.#hooks.values()]
      .filter(({ hook }) => hook.config.kubernetes.length > 0)
      .map(({ hook, module }) => ({ hook, module, snapshots: this.snapshots(module, hook) }));
  }

  /**
   * Starts the kubernetes bindings of global hooks (docs/lifecycle.md step 2). The Synchronization tasks
   * come back: a waitForSynchronization one retargeted to the main queue, so it runs before the
   * ConvergeModules queued after it; the others in their binding's queue.
   */
  async startGlobal(hooks: readonly LoadedHook[]): Promise<HookRunTask[]> {
    const tasks = await this.#startKube(undefined, hooks);
    return tasks.map((task) => this.#toTask(task, task.waitForSynchronization ? MAIN_QUEUE : task.queue));
  }

  /** Global hooks' schedule bindings, enabled once their kubernetes bindings are. */
  enableGlobalSchedules(hooks: readonly LoadedHook[]): void {
    for (const hook of hooks) this.#addSchedules(undefined, hook);
  }

  /**
   * A module's kubernetes bindings and schedules (docs/lifecycle.md step 5); restarts them if they run.
   * Returns the Synchronization tasks, which the module run executes before beforeHelm.
   */
  async startModule(module: string, hooks: readonly LoadedHook[]): Promise<HookRunTask[]> {
    await this.stopModule(module);
    const tasks = await this.#startKube(module, hooks);
    for (const hook of hooks) this.#addSchedules(module, hook);
    return tasks.map((task) => this.#toTask(task, task.queue));
  }

  /** A disabled or deleted module: its watches and schedules stop. */
  async stopModule(module: string): Promise<void> {
    await this.#stopOwner(module);
  }

  /** The hooks of global (`undefined`) or a module whose bindings run, as they were started. */
  bound(module: string | undefined): LoadedHook[] {
    return [...this.#hooks.values()].filter((bound) => bound.module === module).map(({ hook }) => hook);
  }

  /** Global hooks replaced by a new modules tree: their watches and schedules stop. */
  async stopGlobal(): Promise<void> {
    await this.#stopOwner(undefined);
  }

  async #stopOwner(module: string | undefined): Promise<void> {
    const ids = [...this.#hooks].filter(([, bound]) => bound.module === module).map(([id]) => id);
    for (const id of ids) {
      this.#hooks.delete(id);
      this.#schedules.remove(id);
      await this.#monitors.stopHook(id);
    }
  }

  /** See ScheduleBindings.take; undefined for a tick of a hook stopped since. */
  takeSchedule(key: string): ScheduleRun | undefined {
    return this.#schedules.take(key);
  }

  async stop(): Promise<void> {
    this.#schedules.stop();
    this.#hooks.clear();
    await this.#monitors.stop();
  }

  async #startKube(module: string | undefined, hooks: readonly LoadedHook[]): Promise<KubeBindingTask[]> {
    const synchronizations: KubeBindingTask[] = [];
    for (const hook of hooks) {
      const id = hookId(module, hook);
      this.#hooks.set(id, { hook, module });
      if (hook.config.kubernetes.length === 0) continue;
      this.#starting.add(id);
      try {
        const labels = { module, hook: hook.descriptor.name };
        await this.#monitors.startHook({ id, config: hook.config, labels });
      } finally {
        this.#starting.delete(id);
      }
      synchronizations.push(...this.#captured.filter((task) => task.hookId === id));
      this.#captured = this.#captured.filter((task) => task.hookId !== id);
    }
    return synchronizations;
  }

  #addSchedules(module: string | undefined, hook: LoadedHook): void {
    const id = hookId(module, hook);
    this.#hooks.set(id, { hook, module });
    if (hook.config.schedule.length > 0) this.#schedules.add(id, hook.config);
  }

  #onKubeTask(task: KubeBindingTask): void {
    if (task.type === 'Synchronization' && this.#starting.has(task.hookId)) {
      this.#captured.push(task);
      return;
    }
    const bound = this.#hooks.get(task.hookId);
    if (bound === undefined) return;
    const queued = this.#toTask(task, task.queue);
    this.#logger.debug('kubernetes event queued', {
      module: bound.module,
      hook: bound.hook.descriptor.name,
      binding: task.binding,
      queue: queued.queue,
      task: describeTask(queued),
    });
    this.#sink(queued);
  }

  #onTick(tick: ScheduleTick): void {
    const bound = this.#hooks.get(tick.hookId);
    if (bound === undefined) return;
    this.#sink(
      createTask(
        bound.module === undefined ? 'GlobalHookRun' : 'ModuleHookRun',
        {
          queue: tick.queue,
          payload: { bindingContexts: [], hookVersion: bound.hook.config.version, scheduleKey: tick.key },
          metadata: {
            ...(bound.module === undefined ? {} : { module: bound.module }),
            hook: tick.hookId,
            bindingType: 'schedule',
            bindings: [tick.binding.name],
            allowFailure: tick.allowFailure,
            event: 'schedule',
          },
        },
        Date.now(),
      ),
    );
  }

  #toTask(task: KubeBindingTask, queue: string): HookRunTask {
    const bound = this.#hooks.get(task.hookId);
    const module = bound?.module;
    return createTask(
      module === undefined ? 'GlobalHookRun' : 'ModuleHookRun',
      {
        queue,
        payload: {
          bindingContexts: task.contexts,
          hookVersion: bound?.hook.config.version ?? 'v1',
          ...(task.type === 'Synchronization'
            ? {
                synchronization: {
                  waitForSynchronization: task.waitForSynchronization,
                  executeOnSynchronization: true,
                },
              }
            : {}),
        },
        metadata: {
          ...(module === undefined ? {} : { module }),
          hook: task.hookId,
          bindingType: 'kubernetes',
          bindings: [task.binding],
          allowFailure: task.allowFailure,
          event: `kubernetes ${task.type}`,
        },
      },
      Date.now(),
    );
  }
}
