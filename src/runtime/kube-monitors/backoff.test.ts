import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelayMs } from './backoff.ts';

describe('backoffDelayMs', () => {
  it('doubles from 0.5 s up to 30 s, with half of each pause random', () => {
    const lowest = [1, 2, 3, 4, 5, 6, 7, 8, 20, 1000].map((attempt) => backoffDelayMs(attempt, () => 0));
    const highest = [1, 2, 3, 4, 5, 6, 7, 8, 20, 1000].map((attempt) => backoffDelayMs(attempt, () => 1));
    assert.deepEqual(highest, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    assert.deepEqual(lowest, [250, 500, 1000, 2000, 4000, 8000, 15000, 15000, 15000, 15000]);
  });
});
