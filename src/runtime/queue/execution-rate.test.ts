import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BindingContext } from '../../hooks/binding-context.ts';
import {
  globalHookRun,
  labelOf,
  ManualClock,
  moduleRun,
  recordingHandlers,
} from '../../../test/queue-test-kit.ts';
import { TaskQueueSet } from './task-queue-set.ts';
import { TokenBucket } from '../../core/token-bucket.ts';

const tick = (n: number): BindingContext => ({ binding: `every-${n}`, type: 'Schedule' });

describe('TokenBucket (docs/hooks.md "Execution rate")', () => {
  it('allows a burst, then one run per interval', () => {
    const bucket = new TokenBucket({ intervalMs: 1_000, burst: 2 }, 0);
    bucket.take(0);
    assert.equal(bucket.delayMs(0), 0);
    bucket.take(0);
    assert.equal(bucket.delayMs(0), 1_000);
    assert.equal(bucket.delayMs(400), 600);
    assert.equal(bucket.delayMs(1_000), 0);
  });
});

describe('throttled hooks', () => {
  it('make the hook wait and combine what piles up, without blocking other queues', async () => {
    const clock = new ManualClock();
    const { handlers, ran } = recordingHandlers();
    const set = new TaskQueueSet({
      handlers,
      clock,
      executionRateOf: (task) =>
        task.metadata.hook === 'slow.sh' ? { executionMinIntervalMs: 10_000, executionBurst: 1 } : undefined,
    });
    set.start();
    set.addLast(globalHookRun('slow.sh', [tick(1)]));
    await clock.advance(0);
    set.addLast(globalHookRun('slow.sh', [tick(2)]), globalHookRun('slow.sh', [tick(3)]));
    set.addLast(moduleRun('other', 'other-queue'));
    await clock.advance(1_000);
    assert.deepEqual(ran.map(labelOf), ['slow.sh', 'other']);
    assert.match(
      set.dump().active[0]?.status ?? '',
      /^wait for execution rate of hook 'slow.sh' \(9s left\)$/,
    );
    await clock.advance(9_000);
    assert.deepEqual(ran.map(labelOf), ['slow.sh', 'other', 'slow.sh']);
    const last = ran[2];
    assert.ok(last?.type === 'GlobalHookRun');
    assert.deepEqual(last.payload.bindingContexts, [tick(2), tick(3)]);
    await set.stop();
  });
});
