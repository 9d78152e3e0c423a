import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jitteredBackoffMs } from './backoff.ts';

describe('jitteredBackoffMs', () => {
  it('doubles from 0.5 s up to 30 s, with half of each pause random', () => {
    const watch = { initialMs: 500, maxMs: 30_000 };
    const at = (random: number): number[] =>
      [1, 2, 3, 4, 5, 6, 7, 8, 20, 1000].map((attempt) => jitteredBackoffMs(attempt, watch, () => random));
    assert.deepEqual(at(1), [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    assert.deepEqual(at(0), [250, 500, 1000, 2000, 4000, 8000, 15000, 15000, 15000, 15000]);
  });
});
