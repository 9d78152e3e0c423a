import type { AnyTask } from './task.ts';

/**
 * What a handler tells the queue to do next (shell-operator's TaskResult, docs/lifecycle.md "Tasks and
 * queues"). Results are values: a handler that throws is treated as `fail` with the thrown value as the
 * error.
 */
export type TaskResult = SuccessResult | RepeatResult | FailResult;

export interface FollowUpTasks {
  /** Put at the front of this queue, in order, before anything else. */
  readonly headTasks?: readonly AnyTask[];
  /** Put right after the current task, in order. */
  readonly afterTasks?: readonly AnyTask[];
  /** Appended to the end of each task's own queue. */
  readonly tailTasks?: readonly AnyTask[];
}

/** The task is done and removed. */
export interface SuccessResult extends FollowUpTasks {
  readonly status: 'success';
}

/**
 * The task stays and runs again once its head tasks are done (shell-operator's Keep and Repeat:
 * multi-phase tasks such as ConvergeModules and ModuleRun).
 */
export interface RepeatResult extends FollowUpTasks {
  readonly status: 'repeat';
  /** Wait before running the task again; head tasks run without waiting. */
  readonly delayMs?: number;
}

/** The task stays at the head and is retried with backoff; follow-up tasks are not allowed. */
export interface FailResult {
  readonly status: 'fail';
  readonly error: unknown;
  /** Overrides the backoff delay. */
  readonly delayMs?: number;
}

export const success = (followUp: FollowUpTasks = {}): SuccessResult => ({ status: 'success', ...followUp });

export const repeat = (followUp: FollowUpTasks & { delayMs?: number } = {}): RepeatResult => ({
  status: 'repeat',
  ...followUp,
});

export const fail = (error: unknown, delayMs?: number): FailResult =>
  delayMs === undefined ? { status: 'fail', error } : { status: 'fail', error, delayMs };
