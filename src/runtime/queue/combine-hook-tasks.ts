import { compactGroupContexts } from '../../hooks/binding-context.ts';
import type { AnyTask, HookRunTask } from './task.ts';
import { isHookRunTask } from './task.ts';

export interface CombinedTasks {
  /** The head task, carrying the contexts of the tasks combined into it. */
  readonly task: AnyTask;
  /** How many tasks right after the head were combined into it; they leave the queue. */
  readonly combined: number;
}

/**
 * Combines piled-up runs of one hook into the run about to start (docs/hooks.md "Binding contexts" and
 * "Execution rate"): the contiguous tasks after `tasks[0]` of the same type, module and hook, with their
 * binding contexts concatenated in queue order, then group-compacted (of consecutive contexts of one group,
 * only the last is kept). Only v1 hooks are combined. Two Synchronization tasks that differ in
 * waitForSynchronization or executeHookOnSynchronization stay apart.
 */
export function combineHookTasks(tasks: readonly AnyTask[]): CombinedTasks | undefined {
  const head = tasks[0];
  if (head === undefined || !isHookRunTask(head) || head.payload.hookVersion !== 'v1') return undefined;
  const followers: HookRunTask[] = [];
  for (const next of tasks.slice(1)) {
    if (!isCombinable(followers.at(-1) ?? head, next)) break;
    followers.push(next);
  }
  if (followers.length === 0) return undefined;
  const contexts = [head, ...followers].flatMap((task) => task.payload.bindingContexts);
  const bindings = [head, ...followers].flatMap((task) => task.metadata.bindings ?? []);
  const metadata =
    bindings.length === 0 ? head.metadata : { ...head.metadata, bindings: [...new Set(bindings)] };
  const payload = { ...head.payload, bindingContexts: compactGroupContexts(contexts) };
  return { task: { ...head, payload, metadata }, combined: followers.length };
}

function isCombinable(previous: HookRunTask, next: AnyTask): next is HookRunTask {
  if (next.type !== previous.type || !isHookRunTask(next)) return false;
  if (next.metadata.hook !== previous.metadata.hook || next.metadata.module !== previous.metadata.module) {
    return false;
  }
  if (next.payload.scheduleKey !== undefined || previous.payload.scheduleKey !== undefined) return false;
  return !isSynchronizationMismatch(previous, next);
}

function isSynchronizationMismatch(previous: HookRunTask, next: HookRunTask): boolean {
  const a = previous.payload.synchronization;
  const b = next.payload.synchronization;
  if (a === undefined || b === undefined) return false;
  return (
    a.waitForSynchronization !== b.waitForSynchronization ||
    a.executeOnSynchronization !== b.executeOnSynchronization
  );
}
