import type { HookConfig, ScheduleBinding } from '../hooks/hook-config.ts';
import type { Logger } from '../observability/logger.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { startScheduleTimer } from './schedule-timer.ts';

/** A schedule binding that has ticked and waits for its queue: what the consumer enqueues. */
export interface ScheduleTick {
  /** What take() is called with; stable while the hook stays added. */
  readonly key: string;
  readonly hookId: string;
  readonly binding: ScheduleBinding;
  readonly queue: string;
  readonly allowFailure: boolean;
  readonly group?: string;
}

/** A taken tick: one hook run. `config` is what scheduleContext() needs. */
export interface ScheduleRun extends ScheduleTick {
  readonly config: HookConfig;
  /** How many ticks the run stands for: 1, or more when ticks came while the binding was pending. */
  readonly ticks: number;
}

export interface ScheduleBindingsOptions {
  readonly logger: Logger;
  /** Called when a binding goes from no pending tick to one; see ScheduleBindings. */
  readonly onTick: (tick: ScheduleTick) => void;
  readonly clock?: Clock;
}

interface ScheduledBinding {
  readonly tick: ScheduleTick;
  readonly config: HookConfig;
  pendingTicks: number;
}

/** One timer per distinct crontab string, firing every binding with it (docs/hooks.md "schedule"). */
interface CrontabEntry {
  readonly bindings: ScheduledBinding[];
  readonly stop: () => void;
}

/**
 * Fires hooks' schedule bindings. The contract with the queue layer keeps a tick that comes
 * while the hook is queued or running from being lost, without queueing it more than once:
 *
 * - `onTick(tick)` is called when a binding with no pending tick ticks: enqueue one task for
 *   `tick.key`. Further ticks before that task is taken are merged into it (counted), with no
 *   call, so a binding has at most one task waiting in its queue.
 * - `take(key)` when the task starts: it returns the run with the number of ticks it stands for
 *   and clears the pending count, so a tick during the run is again exactly one new task. It
 *   returns undefined for a task whose hook was removed since (drop the task).
 * - A consumer that does not want a tick (addon-operator drops ticks before the first converge,
 *   docs/hooks.md "schedule") calls take() and drops the run; otherwise later ticks only merge into it.
 */
export class ScheduleBindings {
  readonly #logger: Logger;
  readonly #onTick: (tick: ScheduleTick) => void;
  readonly #clock: Clock;
  readonly #entries = new Map<string, CrontabEntry>();
  readonly #bindings = new Map<string, ScheduledBinding>();
  readonly #keysByHook = new Map<string, readonly string[]>();

  constructor(options: ScheduleBindingsOptions) {
    this.#logger = options.logger;
    this.#onTick = options.onTick;
    this.#clock = options.clock ?? systemClock;
  }

  /** Starts the hook's schedule bindings; adding a hook again replaces them and their pending ticks. */
  add(hookId: string, config: HookConfig): void {
    this.remove(hookId);
    const keys = config.schedule.map((binding, index) => {
      const scheduled: ScheduledBinding = { tick: tickOf(hookId, binding, index), config, pendingTicks: 0 };
      this.#bindings.set(scheduled.tick.key, scheduled);
      this.#entryFor(binding).bindings.push(scheduled);
      return scheduled.tick.key;
    });
    this.#keysByHook.set(hookId, keys);
  }

  /** Stops the hook's schedule bindings (a module disabled or deleted) and forgets their pending ticks. */
  remove(hookId: string): void {
    for (const key of this.#keysByHook.get(hookId) ?? []) this.#bindings.delete(key);
    this.#keysByHook.delete(hookId);
    for (const [crontab, entry] of this.#entries) {
      const kept = entry.bindings.filter((scheduled) => scheduled.tick.hookId !== hookId);
      entry.bindings.splice(0, entry.bindings.length, ...kept);
      if (kept.length > 0) continue;
      entry.stop();
      this.#entries.delete(crontab);
    }
  }

  /** The run for a task the consumer enqueued on onTick; see the class comment. */
  take(key: string): ScheduleRun | undefined {
    const scheduled = this.#bindings.get(key);
    if (scheduled === undefined || scheduled.pendingTicks === 0) return undefined;
    const ticks = scheduled.pendingTicks;
    scheduled.pendingTicks = 0;
    return { ...scheduled.tick, config: scheduled.config, ticks };
  }

  /** Ticks not taken yet, for queue dumps; 0 for an unknown key. */
  pendingTicks(key: string): number {
    return this.#bindings.get(key)?.pendingTicks ?? 0;
  }

  /** Clears every timer and forgets every hook. */
  stop(): void {
    for (const hookId of [...this.#keysByHook.keys()]) this.remove(hookId);
  }

  #entryFor(binding: ScheduleBinding): CrontabEntry {
    const existing = this.#entries.get(binding.crontab);
    if (existing !== undefined) return existing;
    const bindings: ScheduledBinding[] = [];
    const stop = startScheduleTimer(binding.schedule, this.#clock, () => {
      this.#fire(binding.crontab, bindings);
    });
    const entry = { bindings, stop };
    this.#entries.set(binding.crontab, entry);
    return entry;
  }

  #fire(crontab: string, bindings: readonly ScheduledBinding[]): void {
    this.#logger.debug('schedule tick', { crontab, bindings: bindings.length });
    for (const scheduled of [...bindings]) {
      // A consumer may remove a hook from inside onTick.
      if (this.#bindings.get(scheduled.tick.key) !== scheduled) continue;
      scheduled.pendingTicks += 1;
      if (scheduled.pendingTicks === 1) this.#onTick(scheduled.tick);
      else
        this.#logger.debug('schedule tick merged into the pending one', {
          hook: scheduled.tick.hookId,
          binding: scheduled.tick.binding.name,
          queue: scheduled.tick.queue,
          ticks: scheduled.pendingTicks,
        });
    }
  }
}

/** Keyed by position: a hook may give two schedule bindings the same name. */
function tickOf(hookId: string, binding: ScheduleBinding, index: number): ScheduleTick {
  return {
    key: `${hookId} schedule[${index}]`,
    hookId,
    binding,
    queue: binding.queue,
    allowFailure: binding.allowFailure,
    ...(binding.group === undefined ? {} : { group: binding.group }),
  };
}
