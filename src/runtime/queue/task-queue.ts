import { combineHookTasks } from './combine-hook-tasks.ts';
import { backoffDelayMs, TASK_RETRY_BACKOFF } from '../../core/backoff.ts';
import type { Clock } from '../../core/clock.ts';
import type { QueueAction, QueueObserver } from './queue-observer.ts';
import type { QueueStatus } from './queue-status.ts';
import type { AnyTask, Task, TaskType } from './task.ts';
import { isTaskOfType } from './task.ts';
import { runTaskHandler, type TaskHandlers } from './task-handler.ts';
import type { TaskResult } from './task-result.ts';
import type { TokenBucket } from '../../core/token-bucket.ts';

/** shell-operator's 25 ms pause before a repeated task runs again (docs/lifecycle.md "Tasks and queues"). */
const REPEAT_DELAY_MS = 25;

/** A task in a queue and what the queue knows about its failures. */
export interface QueuedTask {
  readonly task: AnyTask;
  readonly failures: number;
  readonly lastError?: unknown;
  /** The task does not run before this time (a retry after a failure, or a repeat). */
  readonly notBefore: number;
}

export interface TaskQueueDeps {
  readonly clock: Clock;
  readonly handlers: TaskHandlers;
  readonly observer: QueueObserver;
  /** The execution-rate bucket of the task's hook, if it has one. */
  readonly bucketOf: (task: AnyTask) => { readonly hook: string; readonly bucket: TokenBucket } | undefined;
  /** Appends a result's tail task to its own queue. */
  readonly addToTail: (task: AnyTask) => void;
}

/**
 * A named FIFO of tasks and its worker (docs/lifecycle.md "Tasks and queues"): the worker runs
 * the head task's handler, one at a time, and acts on its result. A failed task stays at the head
 * and is retried with backoff; queues do not wait for each other.
 */
export class TaskQueue {
  readonly name: string;
  readonly #deps: TaskQueueDeps;
  #entries: QueuedTask[] = [];
  #running: QueuedTask | undefined;
  #status: QueueStatus = { kind: 'idle' };
  #wake: (() => void) | undefined;
  #worker: Promise<void> | undefined;
  #stopping = false;
  readonly #abort = new AbortController();

  constructor(name: string, deps: TaskQueueDeps) {
    this.name = name;
    this.#deps = deps;
  }

  get length(): number {
    return this.#entries.length;
  }

  get status(): QueueStatus {
    return this.#status;
  }

  /** The queued tasks, head first, with their failures and retry times. */
  entries(): readonly QueuedTask[] {
    return [...this.#entries];
  }

  tasks(): readonly AnyTask[] {
    return this.#entries.map((entry) => entry.task);
  }

  addFirst(...tasks: readonly AnyTask[]): void {
    this.#timed('AddFirst', () => {
      this.#insert(0, tasks);
    });
  }

  addLast(...tasks: readonly AnyTask[]): void {
    this.#timed('AddLast', () => {
      this.#insert(this.#entries.length, tasks);
    });
  }

  /** Inserts right after the task with `id`; returns false (and adds nothing) if it is not queued. */
  addAfter(id: string, ...tasks: readonly AnyTask[]): boolean {
    return this.#timed('AddAfter', () => {
      const index = this.#entries.findIndex((entry) => entry.task.id === id);
      if (index < 0) return false;
      this.#insert(index + 1, tasks);
      return true;
    });
  }

  /** Removes the waiting tasks that match; the task whose handler is running stays. */
  remove(predicate: (task: AnyTask) => boolean): AnyTask[] {
    return this.#timed('Filter', () => {
      const removed = this.#entries.filter((entry) => entry !== this.#running && predicate(entry.task));
      if (removed.length === 0) return [];
      this.#entries = this.#entries.filter((entry) => !removed.includes(entry));
      this.#changed();
      return removed.map((entry) => entry.task);
    });
  }

  find<T extends TaskType>(type: T, predicate: (task: Task<T>) => boolean = () => true): Task<T> | undefined {
    return this.#timed('Iterate', () => {
      for (const { task } of this.#entries) {
        if (isTaskOfType(task, type) && predicate(task)) return task;
      }
      return undefined;
    });
  }

  /** Starts the worker; idempotent. */
  start(): void {
    if (this.#stopping) return;
    this.#worker ??= this.#work();
  }

  /** Stops taking tasks, aborts the running handler's signal and waits for the handler to return. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#abort.abort();
    this.#wake?.();
    await this.#worker;
    this.#status = { kind: 'stop' };
  }

  /** Runs one queue operation and reports its duration (tasks_queue_action_duration_seconds). */
  #timed<T>(action: QueueAction, operation: () => T): T {
    const startedAt = performance.now();
    try {
      return operation();
    } finally {
      this.#deps.observer.onQueueAction?.(this.name, action, (performance.now() - startedAt) / 1000);
    }
  }

  #insert(index: number, tasks: readonly AnyTask[]): void {
    if (tasks.length === 0) return;
    const now = this.#deps.clock.now();
    const entries = tasks.map((task) => ({
      task: { ...task, queue: this.name },
      failures: 0,
      notBefore: now,
    }));
    this.#entries.splice(index, 0, ...entries);
    this.#changed();
  }

  #changed(): void {
    this.#deps.observer.onQueueLength?.(this.name, this.#entries.length);
    this.#wake?.();
  }

  async #work(): Promise<void> {
    while (!this.#stopping) {
      const head = this.#entries[0];
      const waitMs = head === undefined ? undefined : this.#waitBeforeRunning(head);
      if (waitMs === 0 && head !== undefined) await this.#run(head);
      else await this.#sleep(waitMs);
    }
  }

  /** 0 when the head may run now; otherwise sets the status and returns how long to wait. */
  #waitBeforeRunning(head: QueuedTask): number {
    const now = this.#deps.clock.now();
    if (head.notBefore > now) {
      const until = head.notBefore;
      this.#status =
        head.failures > 0
          ? { kind: 'sleep after fail', until, delayMs: backoffDelayMs(head.failures, TASK_RETRY_BACKOFF) }
          : { kind: 'repeat head task', until };
      return until - now;
    }
    const rate = this.#deps.bucketOf(head.task);
    const delay = rate?.bucket.delayMs(now) ?? 0;
    if (rate === undefined || delay === 0) return 0;
    this.#status = { kind: 'wait for execution rate', hook: rate.hook, until: now + delay };
    return delay;
  }

  /** Waits `ms`, or until the queue changes or stops; forever when `ms` is undefined. */
  #sleep(ms: number | undefined): Promise<void> {
    if (ms === undefined) this.#status = { kind: 'idle' };
    return new Promise((resolve) => {
      let cancel: (() => void) | undefined;
      this.#wake = () => {
        this.#wake = undefined;
        cancel?.();
        resolve();
      };
      if (ms !== undefined) cancel = this.#deps.clock.setTimer(this.#wake, ms);
    });
  }

  async #run(head: QueuedTask): Promise<void> {
    const now = this.#deps.clock.now();
    this.#deps.bucketOf(head.task)?.bucket.take(now);
    const entry = this.#combine(head);
    const task = { ...entry.task, attempts: entry.task.attempts + 1 };
    const running: QueuedTask = { ...entry, task };
    this.#replace(entry, running);
    if (task.attempts === 1) this.#deps.observer.onTaskWait?.(task, now - task.createdAt);
    this.#status = { kind: 'run first task' };
    this.#running = running;
    const result = await this.#handle(task);
    this.#running = undefined;
    this.#apply(running, result);
  }

  async #handle(task: AnyTask): Promise<TaskResult> {
    try {
      return await runTaskHandler(this.#deps.handlers, task, { signal: this.#abort.signal });
    } catch (error: unknown) {
      return { status: 'fail', error };
    }
  }

  /** Combines the piled-up runs of the head task's hook into it (docs/hooks.md "Binding contexts"). */
  #combine(head: QueuedTask): QueuedTask {
    const combined = combineHookTasks(this.#entries.map((entry) => entry.task));
    if (combined === undefined) return head;
    const entry = { ...head, task: combined.task };
    this.#entries.splice(0, combined.combined + 1, entry);
    this.#changed();
    return entry;
  }

  #replace(entry: QueuedTask, next: QueuedTask): void {
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries[index] = next;
  }

  #apply(entry: QueuedTask, result: TaskResult): void {
    const now = this.#deps.clock.now();
    const { observer } = this.#deps;
    if (result.status === 'fail' && entry.task.metadata.allowFailure === true) {
      observer.onAllowedFailure?.(entry.task, result.error);
      this.#removeEntry(entry, []);
    } else if (result.status === 'fail') {
      const failures = entry.failures + 1;
      const delayMs = result.delayMs ?? backoffDelayMs(failures, TASK_RETRY_BACKOFF);
      this.#replace(entry, { ...entry, failures, lastError: result.error, notBefore: now + delayMs });
      observer.onTaskFailed?.(entry.task, result.error, delayMs);
    } else {
      const delayMs = result.status === 'repeat' ? (result.delayMs ?? REPEAT_DELAY_MS) : undefined;
      if (delayMs === undefined) this.#removeEntry(entry, result.afterTasks ?? []);
      else this.#keepEntry(entry, now + delayMs, result.afterTasks ?? []);
      this.#insert(0, result.headTasks ?? []);
      for (const task of result.tailTasks ?? []) this.#deps.addToTail(task);
    }
    this.#changed();
  }

  /** Removes the finished task; its after-tasks take its place. */
  #removeEntry(entry: QueuedTask, afterTasks: readonly AnyTask[]): void {
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries.splice(index, 1);
    this.#insert(Math.max(index, 0), afterTasks);
  }

  #keepEntry(entry: QueuedTask, notBefore: number, afterTasks: readonly AnyTask[]): void {
    const kept = { ...entry, notBefore };
    this.#replace(entry, kept);
    const index = this.#entries.indexOf(kept);
    this.#insert(index + 1, afterTasks);
  }
}
