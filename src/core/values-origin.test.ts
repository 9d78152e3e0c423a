import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PathWriters, valueOrigins } from './values-origin.ts';

describe('valueOrigins (docs/values.md "Where a value came from")', () => {
  it('gives each leaf the last layer that changed it; lists are leaves; escaped keys stay whole', () => {
    const origins = valueOrigins([
      { name: 'file', value: { a: 1, list: [1], 'x/y': { z: true } } },
      { name: 'config', value: { a: 2, list: [1], 'x/y': { z: true } } },
      { name: 'default', value: { a: 2, list: [1, 2], 'x/y': { z: true }, d: {} } },
    ]);
    assert.deepEqual(
      origins.map(({ path, origin }) => [path, origin]),
      [
        ['/a', 'config'],
        ['/list', 'default'],
        ['/x~1y/z', 'file'],
        ['/d', 'default'],
      ],
    );
  });
});

describe('PathWriters', () => {
  it('names the writer of the deepest written path; a write replaces what was under it', () => {
    const writers = new PathWriters();
    writers.write('/a/b', 'first');
    writers.write('/a/c', 'second');
    assert.equal(writers.writerOf('/a/b/deep'), 'first');
    writers.write('/a', 'third');
    assert.equal(writers.writerOf('/a/b'), 'third');
    assert.equal(writers.writerOf('/a/c'), 'third');
    assert.equal(writers.writerOf('/other'), undefined);
  });
});
