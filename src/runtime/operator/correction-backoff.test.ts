import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CorrectionBackoff } from './correction-backoff.ts';

function clockAt(start = 0): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('CorrectionBackoff', () => {
  it('corrects at once, then spaces out the corrections of an object fought over, capped', () => {
    const clock = clockAt();
    const backoff = new CorrectionBackoff(clock, { baseMs: 10, capMs: 40, windowMs: 5 });
    assert.equal(backoff.waitMs('web'), 0);
    assert.deepEqual(backoff.corrected('web'), { delayMs: 0, startsBackoff: false });
    clock.advance(1);
    assert.deepEqual(backoff.corrected('web'), { delayMs: 10, startsBackoff: true });
    assert.equal(backoff.waitMs('web'), 10);
    assert.equal(backoff.waitMs('other'), 0);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      clock.advance(backoff.waitMs('web') + 1);
      const outcome = backoff.corrected('web');
      assert.equal(outcome.startsBackoff, false);
      delays.push(outcome.delayMs);
    }
    assert.deepEqual(delays, [20, 40, 40, 40]);
  });

  it('ends the fight after a quiet spell, and forgets a module’s objects', () => {
    const clock = clockAt();
    const backoff = new CorrectionBackoff(clock, { baseMs: 10, capMs: 40, windowMs: 5 });
    backoff.corrected('app\0web');
    backoff.corrected('app\0web');
    clock.advance(10 + 6);
    assert.deepEqual(backoff.corrected('app\0web'), { delayMs: 0, startsBackoff: false });
    backoff.corrected('app\0web');
    assert.equal(backoff.waitMs('app\0web'), 10);
    backoff.forget('app\0');
    assert.equal(backoff.waitMs('app\0web'), 0);
  });
});
