import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FilteredObject } from './binding-filter.ts';
import { BindingSnapshot } from './binding-snapshot.ts';

function kept(name: string, bytes: number): FilteredObject {
  return { item: { filterResult: name }, checksum: name, bytes };
}

describe('BindingSnapshot', () => {
  it('keeps the newest object per key, sorted by namespace then name, and sums their sizes', () => {
    const snapshot = new BindingSnapshot();
    snapshot.put('b/x', kept('b/x', 10));
    snapshot.put('a/y', kept('a/y', 20));
    snapshot.put('a/x', kept('a/x', 5));
    snapshot.put('b/x', kept('b/x v2', 12));
    assert.deepEqual(
      snapshot.items().map((item) => item.filterResult),
      ['a/x', 'a/y', 'b/x v2'],
    );
    assert.equal(snapshot.size, 3);
    assert.equal(snapshot.bytes, 37);
  });

  it('gives back the size of what it drops, by key or by namespace', () => {
    const snapshot = new BindingSnapshot();
    for (const [key, bytes] of [
      ['a/x', 5],
      ['a/y', 20],
      ['b/x', 10],
    ] as const)
      snapshot.put(key, kept(key, bytes));
    snapshot.remove('a/x');
    snapshot.remove('missing/key');
    assert.equal(snapshot.bytes, 30);
    snapshot.removeWithPrefix('a/');
    assert.deepEqual(
      snapshot.items().map((item) => item.filterResult),
      ['b/x'],
    );
    assert.equal(snapshot.size, 1);
    assert.equal(snapshot.bytes, 10);
  });
});
