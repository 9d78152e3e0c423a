import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHookConfig } from '../../hooks/config/parse-hook-config.ts';
import { createLogger } from '../../observability/logger.ts';
import { createOperatorMetrics } from '../../observability/metrics.ts';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import {
  countBindings,
  HOOK_GRACE_MS,
  LEASE_LOST,
  onConverged,
  STOP_GRACE_MS,
  stopWithGrace,
  type Readiness,
} from './operator-lifecycle.ts';

function recordingLogger(): { logger: ReturnType<typeof createLogger>; lines: () => string[] } {
  const written: string[] = [];
  const logger = createLogger({
    type: 'json',
    level: 'info',
    noTime: true,
    sink: {
      write: (text) => {
        written.push(text);
      },
    },
  });
  const lines = (): string[] =>
    written
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => String((JSON.parse(line) as { msg: unknown }).msg));
  return { logger, lines };
}

function httpReadiness(): Readiness & { readonly standby: (string | undefined)[] } {
  let ready = false;
  const standby: (string | undefined)[] = [];
  return {
    standby,
    isReady: () => ready,
    setReady: () => {
      ready = true;
    },
    setStandby: (text) => {
      standby.push(text);
    },
  };
}

describe('onConverged (docs/lifecycle.md: /readyz after the first convergence)', () => {
  it('makes the operator ready the first time and says how long start-up took; later it only logs', () => {
    const readiness = httpReadiness();
    const { logger, lines } = recordingLogger();
    let now = 1_000;
    const converged = onConverged(readiness, logger, 250, () => now);
    assert.equal(readiness.isReady(), false);
    converged();
    assert.equal(readiness.isReady(), true);
    now = 5_000;
    converged();
    assert.deepEqual(lines(), ['modules converged for the first time', 'modules converged']);
  });
});

describe('countBindings (binding_count)', () => {
  it("counts each hook's kubernetes, schedule and ordered bindings, with an empty module for global hooks", async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    const hook = { name: 'hooks/watch.sh', owner: { kind: 'module', module: 'web' } } as const;
    const config = JSON.stringify({
      configVersion: 'v1',
      kubernetes: [{ name: 'pods', kind: 'Pod' }],
      schedule: [{ name: 'every-minute', crontab: '* * * * *' }],
      beforeHelm: 5,
    });
    const parsed = parseHookConfig(config, hook).config;
    countBindings(metrics)('web', [
      { descriptor: { ...hook, path: '/m/web/hooks/watch.sh' }, config: parsed },
    ]);
    const globalHook = { name: 'startup.sh', owner: { kind: 'global' } } as const;
    const onStartup = parseHookConfig(
      JSON.stringify({ configVersion: 'v1', onStartup: 1 }),
      globalHook,
    ).config;
    countBindings(metrics)(undefined, [
      { descriptor: { ...globalHook, path: '/g/startup.sh' }, config: onStartup },
    ]);
    const text = await metrics.registry.metrics();
    assert.match(text, /^addon_operator_binding_count\{module="web",hook="hooks\/watch.sh"\} 3$/mu);
    assert.match(text, /^addon_operator_binding_count\{module="",hook="startup.sh"\} 1$/mu);
  });
});

describe('stopWithGrace (README "The operator": SIGTERM)', () => {
  function stopping(reason: string): {
    clock: ManualClock;
    finish: () => void;
    ended: () => number;
    result: Promise<boolean>;
    lines: () => string[];
  } {
    const clock = new ManualClock();
    const { logger, lines } = recordingLogger();
    let finish = (): void => undefined;
    const running = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let endedCount = 0;
    const result = stopWithGrace({
      reason,
      stop: () => running,
      endHooks: () => {
        endedCount += 1;
      },
      logger,
      clock,
    });
    return { clock, finish, ended: () => endedCount, result, lines };
  }

  it('lets a running task that finishes within the hook grace end on its own', async () => {
    const stop = stopping('SIGTERM');
    await stop.clock.advance(HOOK_GRACE_MS - 1);
    stop.finish();
    assert.equal(await stop.result, true);
    assert.equal(stop.ended(), 0);
    assert.deepEqual(stop.lines(), ['stopping']);
    assert.equal(stop.clock.pendingTimers, 0, 'no grace timer keeps the process alive');
  });

  it('ends the running hook when the grace is over, then waits for the task', async () => {
    const stop = stopping('SIGINT');
    await stop.clock.advance(HOOK_GRACE_MS);
    assert.equal(stop.ended(), 1);
    stop.finish();
    assert.equal(await stop.result, true);
    assert.deepEqual(stop.lines(), [
      'stopping',
      'the running task did not finish in time: ending running hooks and helm',
    ]);
    assert.equal(stop.clock.pendingTimers, 0, 'no grace timer keeps the process alive');
  });

  it('gives up on a task that has not finished when the whole stop grace is over', async () => {
    const stop = stopping('SIGTERM');
    await stop.clock.advance(STOP_GRACE_MS);
    assert.equal(await stop.result, false);
    assert.equal(stop.ended(), 1);
  });

  it('ends the running hooks at once when the lease was lost: another replica acts now', async () => {
    const stop = stopping(LEASE_LOST);
    await stop.clock.advance(0);
    assert.equal(stop.ended(), 1);
    stop.finish();
    assert.equal(await stop.result, true);
  });
});
