import { describeQueueStatus, seconds } from './queue-status.ts';
import type { TaskQueue } from './task-queue.ts';
import { errorMessage } from '../../core/errors.ts';
import { describeTask } from './task-description.ts';
import type { TaskType } from './task.ts';

/**
 * `queue list` as JSON (docs/observability.md "Debug socket"), with each task's attempts, failure and retry
 * time.
 */
export interface QueueDump {
  readonly active: readonly QueueDumpEntry[];
  /** Present when asked for with showEmpty. */
  readonly empty?: readonly QueueDumpEntry[];
  readonly summary: {
    readonly mainQueueTasks: number;
    readonly otherQueues: { readonly active: number; readonly empty: number; readonly tasks: number };
    readonly totalTasks: number;
  };
}

interface QueueDumpEntry {
  readonly name: string;
  readonly tasksCount: number;
  readonly status: string;
  readonly tasks: readonly TaskDumpEntry[];
}

interface TaskDumpEntry {
  /** 1-based, as in the text dump. */
  readonly index: number;
  readonly id: string;
  readonly type: TaskType;
  readonly description: string;
  readonly attempts: number;
  readonly failures: number;
  readonly lastError?: string;
  /** When a failed or repeated task runs again, as an ISO date; absent when it may run now. */
  readonly retryAt?: string;
}

/** `queues` in dump order (`main` first, then by name; TaskQueueSet.queues()). */
export function dumpQueues(queues: readonly TaskQueue[], now: number, showEmpty = false): QueueDump {
  const entries = queues.map((queue) => dumpQueue(queue, now));
  const main = entries.find((entry) => entry.name === 'main');
  const others = entries.filter((entry) => entry.name !== 'main');
  const otherTasks = others.reduce((sum, entry) => sum + entry.tasksCount, 0);
  const mainQueueTasks = main?.tasksCount ?? 0;
  return {
    active: entries.filter((entry) => entry.tasksCount > 0),
    ...(showEmpty ? { empty: entries.filter((entry) => entry.tasksCount === 0) } : {}),
    summary: {
      mainQueueTasks,
      otherQueues: {
        active: others.filter((entry) => entry.tasksCount > 0).length,
        empty: others.filter((entry) => entry.tasksCount === 0).length,
        tasks: otherTasks,
      },
      totalTasks: mainQueueTasks + otherTasks,
    },
  };
}

function dumpQueue(queue: TaskQueue, now: number): QueueDumpEntry {
  const tasks = queue.entries().map(({ task, failures, lastError, notBefore }, i): TaskDumpEntry => ({
    index: i + 1,
    id: task.id,
    type: task.type,
    description: describeTask(task, failures, lastError),
    attempts: task.attempts,
    failures,
    ...(failures > 0 && lastError !== undefined ? { lastError: errorMessage(lastError) } : {}),
    ...(notBefore > now ? { retryAt: new Date(notBefore).toISOString() } : {}),
  }));
  return {
    name: queue.name,
    tasksCount: tasks.length,
    status: describeQueueStatus(queue.status, now),
    tasks,
  };
}

/** The text of `queue list` (docs/observability.md "Debug socket"). */
export function formatQueueDump(dump: QueueDump, now: number): string {
  const queues = [...dump.active, ...(dump.empty ?? [])];
  const blocks = queues.map((queue) => formatQueue(queue, now));
  const { mainQueueTasks, otherQueues, totalTasks } = dump.summary;
  const summary = [
    'Summary:',
    `- 'main' queue: ${plural(mainQueueTasks, 'task')}.`,
    `- ${plural(otherQueues.active + otherQueues.empty, 'other queue')} (${otherQueues.active} active, ${otherQueues.empty} empty): ${plural(otherQueues.tasks, 'task')}.`,
    `- total ${plural(totalTasks, 'task')} to handle.`,
  ];
  return [...blocks, summary.join('\n')].join('\n\n') + '\n';
}

function formatQueue(queue: QueueDumpEntry, now: number): string {
  const header = `Queue '${queue.name}': length ${queue.tasksCount}, status: '${queue.status}'`;
  if (queue.tasks.length === 0) return header;
  const lines = queue.tasks.map((task) => {
    const retry = task.retryAt === undefined ? '' : ` (retry in ${seconds(Date.parse(task.retryAt) - now)})`;
    return `${String(task.index).padStart(2)}. ${task.description}${retry}`;
  });
  return `${header}\n\n${lines.join('\n')}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
