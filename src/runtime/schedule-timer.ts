import { Cron } from 'croner';
import type { CrontabSchedule } from '../hooks/parse-crontab.ts';
import type { Clock } from '../core/clock.ts';

/** Node fires longer timeouts at once (about 24.8 days): longer waits are armed in steps. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** The next occurrence strictly after `afterMs`, or undefined when the schedule never fires again. */
type NextOccurrence = (afterMs: number) => number | undefined;

function nextOccurrenceOf(schedule: CrontabSchedule): NextOccurrence {
  // cron.v2's ConstantDelaySchedule: the delay counts from the start of the current second.
  if (schedule.kind === 'every') return (afterMs) => Math.floor(afterMs / 1000) * 1000 + schedule.everyMs;
  const cron = new Cron(toCronerPattern(schedule.pattern), {
    paused: true,
    ...timeZoneOption(schedule.timeZone),
  });
  return (afterMs) => cron.nextRun(new Date(afterMs))?.getTime();
}

/**
 * Calls `fire` at every occurrence of `schedule` from now on, until the returned function is
 * called. A timer that wakes late (a suspended process, a clock jump) fires once and skips the
 * occurrences it missed, as cron.v2 does; one that wakes early waits for the rest.
 */
export function startScheduleTimer(schedule: CrontabSchedule, clock: Clock, fire: () => void): () => void {
  const next = nextOccurrenceOf(schedule);
  let cancel: (() => void) | undefined;
  const arm = (due: number | undefined): void => {
    if (due === undefined) {
      cancel = undefined;
      return;
    }
    const delay = Math.min(Math.max(due - clock.now(), 0), MAX_TIMER_DELAY_MS);
    cancel = clock.setTimer(() => {
      wake(due);
    }, delay);
  };
  const wake = (due: number): void => {
    const now = clock.now();
    if (now < due) {
      arm(due);
      return;
    }
    // Armed before firing, so that a consumer stopping the schedule inside `fire` cancels it.
    arm(next(Math.max(now, due)));
    fire();
  };
  arm(next(clock.now()));
  return () => {
    cancel?.();
    cancel = undefined;
  };
}

/** croner replaces `?` by the current time; cron.v2 reads it as `*`. */
function toCronerPattern(pattern: string): string {
  return pattern.replaceAll('?', '*');
}

/** Go's LoadLocation: "" is UTC, "Local" (or no TZ= prefix) is the host's zone. */
function timeZoneOption(timeZone: string | undefined): { timezone?: string } {
  if (timeZone === undefined || timeZone === 'Local') return {};
  return { timezone: timeZone === '' ? 'UTC' : timeZone };
}
