import type { Task, TaskType } from './task.ts';
import type { TaskResult } from './task-result.ts';

export interface TaskContext {
  /**
   * Aborted when the queues stop. A handler running a hook gives it a grace period, then kills it,
   * and returns whatever result it has.
   */
  readonly signal: AbortSignal;
}

export type TaskHandler<T extends TaskType> = (task: Task<T>, context: TaskContext) => Promise<TaskResult>;

/**
 * One handler per task type. Build it with `satisfies TaskHandlers` so that a new task type
 * without a handler does not compile (addon-operator's task factory).
 */
export type TaskHandlers = { readonly [T in TaskType]: TaskHandler<T> };

export function runTaskHandler<T extends TaskType>(
  handlers: TaskHandlers,
  task: Task<T>,
  context: TaskContext,
): Promise<TaskResult> {
  const handler: TaskHandler<T> = handlers[task.type];
  return handler(task, context);
}
