import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sleep, type Clock } from '../core/clock.ts';
import { RequestRateLimiter } from './request-rate-limiter.ts';

/** A clock that moves only when the limiter sleeps: the times it reaches are the pacing. */
function manualClock(): Clock & { readonly sent: number[] } {
  let now = 0;
  return {
    sent: [],
    now: () => now,
    random: () => 0.5,
    setTimer: (fire, ms) => {
      now += ms;
      queueMicrotask(fire);
      return () => undefined;
    },
  };
}

describe('RequestRateLimiter (KUBE_CLIENT_QPS, KUBE_CLIENT_BURST)', () => {
  it('lets a burst through at once, then paces the rest at qps, in the order asked', async () => {
    const clock = manualClock();
    const limiter = new RequestRateLimiter(5, 10, clock);
    const sent: number[] = [];
    await Promise.all(
      Array.from({ length: 13 }, (_, index) =>
        limiter.acquire().then(() => {
          sent.push(clock.now());
          assert.equal(sent.length, index + 1, 'requests go in the order they asked');
        }),
      ),
    );
    assert.deepEqual(sent.slice(0, 10), Array<number>(10).fill(0));
    assert.deepEqual(sent.slice(10), [200, 400, 600]);
  });

  it('refills while idle, up to the burst', async () => {
    const clock = manualClock();
    const limiter = new RequestRateLimiter(10, 2, clock);
    for (let i = 0; i < 3; i++) await limiter.acquire();
    assert.equal(clock.now(), 100);
    await sleep(clock, 10_000);
    const before = clock.now();
    await limiter.acquire();
    await limiter.acquire();
    assert.equal(clock.now(), before, 'two tokens were back, not more');
    await limiter.acquire();
    assert.equal(clock.now(), before + 100);
  });
});
