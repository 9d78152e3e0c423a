import { setImmediate } from 'node:timers/promises';
import type { BindingContext } from '../src/hooks/binding-context.ts';
import type { Clock } from '../src/core/clock.ts';
import {
  createTask,
  type AnyTask,
  type Task,
  type TaskMetadata,
  type TaskType,
} from '../src/runtime/queue/task.ts';
import type { TaskContext, TaskHandler, TaskHandlers } from '../src/runtime/queue/task-handler.ts';
import { success, type TaskResult } from '../src/runtime/queue/task-result.ts';

/**
 * Test support for code that drives the queues (this folder's tests and the lifecycle's): a clock
 * moved by hand, and handlers that record what ran.
 */
export class ManualClock implements Clock {
  #now: number;
  #timers: { due: number; fire: () => void }[] = [];

  constructor(now = Date.UTC(2026, 0, 1)) {
    this.#now = now;
  }

  now(): number {
    return this.#now;
  }

  /** Jitter fixed halfway, so delays are reproducible. */
  random(): number {
    return 0.5;
  }

  setTimer(fire: () => void, delayMs: number): () => void {
    const timer = { due: this.#now + delayMs, fire };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting the workers react. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#timers.filter((t) => t.due <= target).sort((a, b) => a.due - b.due)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = next.due;
      next.fire();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

/** Lets queued promise continuations and workers run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await setImmediate();
}

export type RunHandler = (task: AnyTask, context: TaskContext) => Promise<TaskResult> | TaskResult;

/** Handlers for every task type that record the tasks they ran and answer with `run`. */
export function recordingHandlers(run: RunHandler = () => success()): {
  handlers: TaskHandlers;
  ran: AnyTask[];
} {
  const ran: AnyTask[] = [];
  const handler: TaskHandler<TaskType> = async (task, context) => {
    ran.push(task as AnyTask);
    return run(task as AnyTask, context);
  };
  const handlers = {
    GlobalHookRun: handler,
    ModuleHookRun: handler,
    GlobalHookEnableKubernetesBindings: handler,
    ConvergeModules: handler,
    ModuleRun: handler,
    ModuleDelete: handler,
    ModulePurge: handler,
    ApplyKubeConfigValues: handler,
    SwitchModulesTree: handler,
    LoadGlobalHooks: handler,
  } satisfies TaskHandlers;
  return { handlers, ran };
}

/** A ModuleRun task for `module`, as a short way to make distinguishable tasks. */
export function moduleRun(module: string, queue = 'main', createdAt = 0): Task<'ModuleRun'> {
  return createTask(
    'ModuleRun',
    { queue, payload: { doModuleStartup: false, isReloadAll: false }, metadata: { module } },
    createdAt,
  );
}

/** A v1 GlobalHookRun of `hook` with `contexts`. */
export function globalHookRun(
  hook: string,
  contexts: readonly BindingContext[],
  metadata: TaskMetadata = {},
  queue = 'main',
): Task<'GlobalHookRun'> {
  const bindings = contexts.map((context) => context.binding);
  return createTask(
    'GlobalHookRun',
    {
      queue,
      payload: { bindingContexts: contexts, hookVersion: 'v1' },
      metadata: { hook, bindingType: 'kubernetes', bindings, ...metadata },
    },
    0,
  );
}

/** What identifies a task in assertions: its module or hook. */
export function labelOf(task: AnyTask): string {
  return task.metadata.module ?? task.metadata.hook ?? task.type;
}
