import type { AnyTask } from './task.ts';

/**
 * The queue operations that are timed, named as shell-operator's `MeasureActionTime` names them
 * (the `queue_action` label). Removing by a predicate is shell-operator's `Filter`.
 */
export type QueueAction = 'AddFirst' | 'AddLast' | 'AddAfter' | 'Filter' | 'Iterate';

/**
 * What the queues report to the metrics layer (docs/observability.md "Metrics": tasks_queue_length,
 * task_wait_in_queue_seconds_total, tasks_queue_action_duration_seconds, *_allowed_errors_total).
 * Every callback is optional.
 */
export interface QueueObserver {
  /** After every change of a queue's length. */
  onQueueLength?(queue: string, length: number): void;
  /** When a handler first starts on a task: how long it waited since it was created. */
  onTaskWait?(task: AnyTask, waitMs: number): void;
  /** A task failed and will be retried after `delayMs`. */
  onTaskFailed?(task: AnyTask, error: unknown, delayMs: number): void;
  /** A task with allowFailure failed: it is counted here and dropped. */
  onAllowedFailure?(task: AnyTask, error: unknown): void;
  /** After each timed operation on a queue: how long it took. */
  onQueueAction?(queue: string, action: QueueAction, seconds: number): void;
}
