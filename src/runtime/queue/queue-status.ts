/**
 * What a queue's worker is doing, as the queue dump shows it (docs/lifecycle.md "Tasks and queues" "Queue
 * statuses").
 */
export type QueueStatus =
  | { readonly kind: 'idle' }
  | { readonly kind: 'run first task' }
  | { readonly kind: 'repeat head task'; readonly until: number }
  | { readonly kind: 'sleep after fail'; readonly until: number; readonly delayMs: number }
  | { readonly kind: 'wait for execution rate'; readonly hook: string; readonly until: number }
  | { readonly kind: 'stop' };

export function describeQueueStatus(status: QueueStatus, now: number): string {
  switch (status.kind) {
    case 'idle':
      return '';
    case 'run first task':
    case 'stop':
      return status.kind;
    case 'repeat head task':
      return `repeat head task (${seconds(status.until - now)} left)`;
    case 'sleep after fail':
      return `sleep after fail for ${seconds(status.delayMs)} (${seconds(status.until - now)} left)`;
    case 'wait for execution rate':
      return `wait for execution rate of hook '${status.hook}' (${seconds(status.until - now)} left)`;
  }
}

/** `5s`, `2.5s`, `0s`: whole tenths, as shell-operator truncates delays. */
export function seconds(ms: number): string {
  return `${Math.floor(Math.max(ms, 0) / 100) / 10}s`;
}
