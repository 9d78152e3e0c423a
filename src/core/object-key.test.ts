import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareKeys } from './object-key.ts';

/** What Go compares: the strings' UTF-8 bytes (a lone surrogate written as U+FFFD). */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('compareKeys', () => {
  it('orders a character above U+FFFF after U+E000–U+FFFF, as their UTF-8 bytes do', () => {
    // UTF-16 puts the surrogate pair of U+1F600 (0xD83D…) before U+FF01; UTF-8 puts it after.
    assert.deepEqual(['😀', '！', 'b', 'a', 'é'].sort(compareKeys), ['a', 'b', 'é', '！', '😀']);
  });

  it('agrees with a comparison of the UTF-8 bytes for any strings, lone surrogates included', () => {
    const unit = fc.constantFrom(
      'a',
      'b',
      'é',
      '\uD7FF',
      '\uE000',
      '\uFFFD',
      '\uFFFF',
      '\uD83D',
      '\uDE00',
      '😀',
    );
    const key = fc.string({ unit, maxLength: 6 });
    fc.assert(
      fc.property(key, key, (a, b) => {
        assert.equal(Math.sign(compareKeys(a, b)), Math.sign(byteOrder(a, b)), JSON.stringify([a, b]));
      }),
      { numRuns: 5000 },
    );
  });
});
