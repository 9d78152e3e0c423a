import type { HookSettings } from '../../hooks/hook-config.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import { dumpQueues, type QueueDump } from './queue-dump.ts';
import type { QueueObserver } from './queue-observer.ts';
import type { AnyTask, Task, TaskType } from './task.ts';
import type { TaskHandlers } from './task-handler.ts';
import { TaskQueue } from './task-queue.ts';
import { TokenBucket } from '../../core/token-bucket.ts';

export const MAIN_QUEUE = 'main';

export interface TaskQueueSetOptions {
  readonly handlers: TaskHandlers;
  readonly clock?: Clock;
  readonly observer?: QueueObserver;
  /** The execution rate of a hook-run task's hook (its `settings`), if it has one. */
  readonly executionRateOf?: (task: AnyTask) => HookSettings | undefined;
}

/**
 * The `main` queue and the named queues (docs/lifecycle.md "Tasks and queues"). A queue is created when a
 * task for it is first added, or by `queue(name)`, and its worker runs once the set is started.
 */
export class TaskQueueSet {
  readonly clock: Clock;
  readonly #options: TaskQueueSetOptions;
  readonly #queues = new Map<string, TaskQueue>();
  readonly #buckets = new Map<string, TokenBucket>();
  #started = false;

  constructor(options: TaskQueueSetOptions) {
    this.#options = options;
    this.clock = options.clock ?? systemClock;
    this.queue(MAIN_QUEUE);
  }

  get main(): TaskQueue {
    return this.queue(MAIN_QUEUE);
  }

  /** The queue named `name`, created (and started, if the set is) when it does not exist. */
  queue(name: string): TaskQueue {
    const existing = this.#queues.get(name);
    if (existing !== undefined) return existing;
    const queue = new TaskQueue(name, {
      clock: this.clock,
      handlers: this.#options.handlers,
      observer: this.#options.observer ?? {},
      bucketOf: (task) => this.#bucketOf(task),
      addToTail: (task) => {
        this.addLast(task);
      },
    });
    this.#queues.set(name, queue);
    if (this.#started) queue.start();
    return queue;
  }

  has(name: string): boolean {
    return this.#queues.has(name);
  }

  /** Every queue, `main` first, the others by name (the order of the queue dump). */
  queues(): TaskQueue[] {
    const others = [...this.#queues.values()].filter((queue) => queue.name !== MAIN_QUEUE);
    return [this.main, ...others.sort((a, b) => a.name.localeCompare(b.name))];
  }

  /** Appends each task to its own queue. */
  addLast(...tasks: readonly AnyTask[]): void {
    for (const task of tasks) this.queue(task.queue).addLast(task);
  }

  /** Puts the tasks, in order, at the front of their queues. */
  addFirst(...tasks: readonly AnyTask[]): void {
    for (const task of [...tasks].reverse()) this.queue(task.queue).addFirst(task);
  }

  /** Inserts the tasks right after the task with `id`, in its queue; false if it is not queued. */
  addAfter(id: string, ...tasks: readonly AnyTask[]): boolean {
    const queue = this.queues().find((candidate) => candidate.tasks().some((task) => task.id === id));
    return queue?.addAfter(id, ...tasks) ?? false;
  }

  /** Removes the waiting tasks that match, in every queue or in the named ones. */
  remove(predicate: (task: AnyTask) => boolean, queueNames?: readonly string[]): AnyTask[] {
    const queues =
      queueNames === undefined ? this.queues() : queueNames.flatMap((name) => this.#queues.get(name) ?? []);
    return queues.flatMap((queue) => queue.remove(predicate));
  }

  /** The first queued task of `type` that matches, searching `main` first. */
  find<T extends TaskType>(type: T, predicate?: (task: Task<T>) => boolean): Task<T> | undefined {
    for (const queue of this.queues()) {
      const found = queue.find(type, predicate);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  length(name: string): number {
    return this.#queues.get(name)?.length ?? 0;
  }

  /** `queue list` (docs/observability.md "Debug socket"); format it with formatQueueDump. */
  dump(showEmpty = false): QueueDump {
    return dumpQueues(this.queues(), this.clock.now(), showEmpty);
  }

  start(): void {
    this.#started = true;
    for (const queue of this.#queues.values()) queue.start();
  }

  /** Stops every worker and waits for the running handlers to return. */
  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#queues.values()].map((queue) => queue.stop()));
  }

  /** One bucket per hook, shared by the hook's tasks in every queue. */
  #bucketOf(task: AnyTask): { hook: string; bucket: TokenBucket } | undefined {
    const settings = this.#options.executionRateOf?.(task);
    if (settings === undefined || settings.executionMinIntervalMs <= 0) return undefined;
    const hook = [task.metadata.module, task.metadata.hook].filter((part) => part !== undefined).join('/');
    let bucket = this.#buckets.get(hook);
    if (bucket === undefined) {
      bucket = new TokenBucket(
        { intervalMs: settings.executionMinIntervalMs, burst: settings.executionBurst },
        this.clock.now(),
      );
      this.#buckets.set(hook, bucket);
    }
    return { hook, bucket };
  }
}
