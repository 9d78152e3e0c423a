import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isMassPrune, pruneId } from './prune-guard.ts';

describe('prune guard', () => {
  it('holds the share or more, or all, and never when off', () => {
    const cases: [removals: number, delivered: number, percent: number, held: boolean][] = [
      [0, 8, 50, false],
      [1, 8, 50, false],
      [3, 8, 50, false],
      // Exactly the share is held: 50 % holds half of them.
      [4, 8, 50, true],
      [5, 8, 50, true],
      [1, 4, 25, true],
      [1, 5, 25, false],
      [8, 8, 50, true],
      // All of them counts, even one of one, and even with a share above 100 % of one.
      [1, 1, 50, true],
      [1, 1, 99, true],
      [2, 2, 99, true],
      [1, 2, 50, true],
      [1, 2, 51, false],
      [1, 3, 0, true],
      [8, 8, 100, false],
      // Releases gone meanwhile: more removals than releases counts as all.
      [3, 2, 50, true],
    ];
    for (const [removals, delivered, percent, held] of cases)
      assert.equal(
        isMassPrune(removals, delivered, percent),
        held,
        `${removals}/${delivered} at ${percent}%`,
      );
  });

  it('names the revision, the set of releases (not their order) and the hold', () => {
    const id = pruneId('0123abc', ['b', 'a'], 'n1');
    assert.match(id, /^[0-9a-f]{12}$/u);
    assert.equal(pruneId('0123abc', ['a', 'b'], 'n1'), id);
    assert.notEqual(pruneId('4567def', ['a', 'b'], 'n1'), id, 'another commit needs another confirmation');
    assert.notEqual(pruneId('0123abc', ['a'], 'n1'), id, 'another set needs another confirmation');
    assert.notEqual(pruneId('0123abc', ['a', 'b'], 'n2'), id, 'a later hold needs another confirmation');
  });
});
