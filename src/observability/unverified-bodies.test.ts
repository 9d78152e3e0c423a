import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnverifiedBodies } from './unverified-bodies.ts';

describe('UnverifiedBodies', () => {
  it('admits up to the limit, then makes the oldest give way', () => {
    const bodies = new UnverifiedBodies(2);
    const evicted: string[] = [];
    bodies.admit(() => evicted.push('a'));
    const releaseB = bodies.admit(() => evicted.push('b'));
    assert.equal(evicted.length, 0);
    bodies.admit(() => evicted.push('c'));
    assert.deepEqual(evicted, ['a']);
    releaseB();
    bodies.admit(() => evicted.push('d'));
    assert.deepEqual(evicted, ['a'], 'a released body leaves room');
    bodies.admit(() => evicted.push('e'));
    assert.deepEqual(evicted, ['a', 'c']);
    assert.equal(bodies.size, 2);
  });

  it('a release after eviction changes nothing', () => {
    const bodies = new UnverifiedBodies(1);
    const release = bodies.admit(() => undefined);
    bodies.admit(() => undefined);
    release();
    assert.equal(bodies.size, 1);
  });
});
