import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scheduleContext } from '../hooks/binding-context.ts';
import type { HookConfig } from '../hooks/hook-config.ts';
import { parseHookConfig } from '../hooks/config/parse-hook-config.ts';
import { createCapturingLogger } from '../observability/logger.ts';
import { ScheduleBindings, type ScheduleRun, type ScheduleTick } from './schedule-bindings.ts';
import type { Clock } from '../core/clock.ts';
import { MAX_TIMER_DELAY_MS } from './schedule-timer.ts';

interface FakeTimer {
  readonly due: number;
  readonly seq: number;
  readonly fire: () => void;
}

/** Timers fire in due order as `advance` moves the time; like Node, an over-long delay fires at once. */
class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];

  constructor(start: string) {
    this.#now = Date.parse(start);
  }

  now(): number {
    return this.#now;
  }

  /** Jitter fixed halfway, so delays are reproducible. */
  random(): number {
    return 0.5;
  }

  setTimer(fire: () => void, delayMs: number): () => void {
    const delay = delayMs > MAX_TIMER_DELAY_MS ? 1 : delayMs;
    const timer = { due: this.#now + delay, seq: this.#seq++, fire };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((other) => other !== timer);
    };
  }

  get armedTimers(): number {
    return this.#timers.length;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const timer = this.#timers
        .filter(({ due }) => due <= end)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (timer === undefined) break;
      this.#timers = this.#timers.filter((other) => other !== timer);
      this.#now = timer.due;
      timer.fire();
    }
    this.#now = end;
  }
}

function hookConfig(...schedule: Record<string, unknown>[]): HookConfig {
  const text = JSON.stringify({ configVersion: 'v1', schedule });
  return parseHookConfig(text, { name: 'hook.sh', owner: { kind: 'global' } }).config;
}

interface Harness {
  readonly manager: ScheduleBindings;
  readonly ticks: ScheduleTick[];
}

function harness(clock: Clock, onTick?: (tick: ScheduleTick, manager: ScheduleBindings) => void): Harness {
  const ticks: ScheduleTick[] = [];
  const manager: ScheduleBindings = new ScheduleBindings({
    logger: createCapturingLogger(),
    clock,
    onTick: (tick) => {
      ticks.push(tick);
      onTick?.(tick, manager);
    },
  });
  return { manager, ticks };
}

/** A queue that runs every task at once: records when each binding's hook ran. */
function eagerQueue(clock: Clock): Harness & { readonly runs: string[] } {
  const runs: string[] = [];
  const h = harness(clock, (tick, manager) => {
    const run = manager.take(tick.key);
    if (run !== undefined) runs.push(`${run.hookId} ${new Date(clock.now()).toISOString()}`);
  });
  return { ...h, runs };
}

describe('ScheduleBindings', () => {
  it('shares one timer between bindings with the same crontab and fans the tick out to each', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, ticks } = harness(clock);
    manager.add('a', hookConfig({ name: 'every5', crontab: '*/5 * * * * *' }));
    manager.add('b', hookConfig({ crontab: '*/5 * * * * *' }, { crontab: '*/10 * * * * *' }));
    assert.equal(clock.armedTimers, 2);
    clock.advance(5000);
    assert.deepEqual(
      ticks.map((tick) => `${tick.hookId}/${tick.binding.name}`),
      ['a/every5', 'b/schedule'],
    );
    manager.remove('a');
    assert.equal(clock.armedTimers, 2);
    manager.remove('b');
    assert.equal(clock.armedTimers, 0);
  });

  it('reads five fields as minutes first and six fields as seconds first', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, runs } = eagerQueue(clock);
    manager.add('five', hookConfig({ crontab: '* * * * *' }));
    manager.add('six', hookConfig({ crontab: '*/20 * * * * *' }));
    clock.advance(60_000);
    assert.deepEqual(runs, [
      'six 2026-01-01T00:00:20.000Z',
      'six 2026-01-01T00:00:40.000Z',
      'five 2026-01-01T00:01:00.000Z',
      'six 2026-01-01T00:01:00.000Z',
    ]);
  });

  it('reads ? as a wildcard, as cron.v2 does', () => {
    const clock = new FakeClock('2026-01-01T00:00:30.000Z');
    const { manager, runs } = eagerQueue(clock);
    manager.add('hook', hookConfig({ crontab: '0 ? * * * *' }));
    clock.advance(120_000);
    assert.deepEqual(runs, ['hook 2026-01-01T00:01:00.000Z', 'hook 2026-01-01T00:02:00.000Z']);
  });

  it('fires in the time zone of a TZ= prefix', () => {
    const clock = new FakeClock('2025-12-31T12:00:00.000Z');
    const { manager, runs } = eagerQueue(clock);
    manager.add('tokyo', hookConfig({ crontab: 'TZ=Asia/Tokyo 0 9 * * *' }));
    manager.add('utc', hookConfig({ crontab: 'TZ=UTC 0 9 * * *' }));
    clock.advance(24 * 3600_000);
    assert.deepEqual(runs, ['tokyo 2026-01-01T00:00:00.000Z', 'utc 2026-01-01T09:00:00.000Z']);
  });

  it('waits longer than one Node timer allows for a yearly schedule', () => {
    const clock = new FakeClock('2026-02-01T00:00:00.000Z');
    const { manager, runs } = eagerQueue(clock);
    manager.add('yearly', hookConfig({ crontab: 'TZ=UTC @yearly' }));
    clock.advance(400 * 24 * 3600_000);
    assert.deepEqual(runs, ['yearly 2027-01-01T00:00:00.000Z']);
  });

  it('fires @every at a constant interval from the current second', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.250Z');
    const { manager, runs } = eagerQueue(clock);
    manager.add('hook', hookConfig({ crontab: '@every 1m30s' }));
    clock.advance(300_000);
    assert.deepEqual(runs, [
      'hook 2026-01-01T00:01:30.000Z',
      'hook 2026-01-01T00:03:00.000Z',
      'hook 2026-01-01T00:04:30.000Z',
    ]);
  });

  it('delivers the binding settings the queue needs, and a run that builds its context', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, ticks } = harness(clock);
    const config = hookConfig({
      name: 'cleanup',
      crontab: '* * * * * *',
      queue: 'slow',
      allowFailure: true,
      group: 'g',
    });
    manager.add('hook', config);
    clock.advance(1000);
    const [tick] = ticks;
    assert.ok(tick);
    assert.deepEqual(
      {
        hookId: tick.hookId,
        name: tick.binding.name,
        queue: tick.queue,
        allowFailure: tick.allowFailure,
        group: tick.group,
      },
      { hookId: 'hook', name: 'cleanup', queue: 'slow', allowFailure: true, group: 'g' },
    );
    const run = manager.take(tick.key);
    assert.ok(run);
    assert.deepEqual(scheduleContext(run.config, run.binding, {}), {
      binding: 'cleanup',
      type: 'Group',
      groupName: 'g',
    });
  });

  it('merges ticks that come while the binding is queued into one run that counts them', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, ticks } = harness(clock);
    manager.add('hook', hookConfig({ crontab: '* * * * * *' }));
    clock.advance(3000);
    assert.equal(ticks.length, 1);
    const key = ticks[0]!.key;
    assert.equal(manager.pendingTicks(key), 3);
    assert.equal(manager.take(key)?.ticks, 3);
    assert.equal(manager.take(key), undefined);
    clock.advance(1000);
    assert.equal(ticks.length, 2);
    assert.equal(manager.take(key)?.ticks, 1);
  });

  it('keeps ticks during a run as exactly one pending task', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const taken: ScheduleRun[] = [];
    const { manager, ticks } = harness(clock, (tick, scheduler) => {
      // The first task starts at once; the next waits in the queue behind the running hook.
      if (taken.length === 0) taken.push(scheduler.take(tick.key)!);
    });
    manager.add('hook', hookConfig({ crontab: '* * * * * *' }));
    clock.advance(1000);
    assert.equal(taken.length, 1);
    clock.advance(4000);
    assert.equal(ticks.length, 2);
    assert.equal(manager.take(ticks[1]!.key)?.ticks, 4);
  });

  it('forgets the pending ticks of a removed hook', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, ticks } = harness(clock);
    manager.add('hook', hookConfig({ crontab: '* * * * * *' }));
    clock.advance(1000);
    manager.remove('hook');
    assert.equal(manager.take(ticks[0]!.key), undefined);
  });

  it('clears every timer on stop', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.500Z');
    const { manager, ticks } = harness(clock);
    manager.add('a', hookConfig({ crontab: '* * * * * *' }, { crontab: '@every 2s' }));
    manager.add('b', hookConfig({ crontab: '*/5 * * * *' }));
    assert.equal(clock.armedTimers, 3);
    manager.stop();
    assert.equal(clock.armedTimers, 0);
    clock.advance(600_000);
    assert.deepEqual(ticks, []);
  });

  it('ticks in real time for a six-field crontab and for @every', async () => {
    const seen = new Map<string, number>();
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      resolveDone = resolve;
    });
    const manager: ScheduleBindings = new ScheduleBindings({
      logger: createCapturingLogger(),
      onTick: (tick) => {
        const run = manager.take(tick.key);
        if (run !== undefined) seen.set(run.hookId, (seen.get(run.hookId) ?? 0) + run.ticks);
        if ((seen.get('cron') ?? 0) >= 2 && (seen.get('every') ?? 0) >= 2) resolveDone();
      },
    });
    let deadline: NodeJS.Timeout | undefined;
    try {
      manager.add('cron', hookConfig({ crontab: '*/1 * * * * *' }));
      manager.add('every', hookConfig({ crontab: '@every 1s' }));
      const timedOut = new Promise<'timeout'>((resolve) => {
        deadline = setTimeout(resolve, 10_000, 'timeout');
      });
      assert.notEqual(
        await Promise.race([done, timedOut]),
        'timeout',
        `ticks seen: ${JSON.stringify([...seen])}`,
      );
    } finally {
      clearTimeout(deadline);
      manager.stop();
    }
  });
});
