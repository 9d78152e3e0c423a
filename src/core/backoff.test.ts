import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelayMs, syncDelayMs, TASK_RETRY_BACKOFF, WATCH_BACKOFF } from './backoff.ts';

describe('backoffDelayMs', () => {
  it('doubles from 0.5 s up to 30 s for watches, with half of each pause random', () => {
    const at = (random: number): number[] =>
      [1, 2, 3, 4, 5, 6, 7, 8, 20, 1000].map((attempt) =>
        backoffDelayMs(attempt, WATCH_BACKOFF, () => random),
      );
    assert.deepEqual(at(1), [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    assert.deepEqual(at(0), [250, 500, 1000, 2000, 4000, 8000, 15000, 15000, 15000, 15000]);
  });

  it('retries a failed task after 5, 10, 20, then 30 s, without jitter', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 50].map((failures) => backoffDelayMs(failures, TASK_RETRY_BACKOFF, () => 0)),
      [5_000, 10_000, 20_000, 30_000, 30_000, 30_000],
    );
  });
});

describe('syncDelayMs', () => {
  it('doubles the poll interval per failed sync up to the cap, never below the poll interval', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 10].map((n) => syncDelayMs(200, n, 1000)),
      [200, 400, 800, 1000, 1000],
    );
    assert.equal(syncDelayMs(60_000, 3, 1000), 60_000);
  });
});
