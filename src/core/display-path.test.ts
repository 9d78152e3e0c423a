import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayPath } from './display-path.ts';

describe('displayPath', () => {
  it('shows a path below the base relative to it, and the base as .', () => {
    assert.equal(displayPath('/work/tree/modules/010-a', '/work/tree'), 'modules/010-a');
    assert.equal(displayPath('/work/tree', '/work/tree'), '.');
  });

  it('shows a path outside the base as it is', () => {
    assert.equal(displayPath('/etc/kaddon/components', '/work/tree'), '/etc/kaddon/components');
    assert.equal(displayPath('/work', '/work/tree'), '/work');
    assert.equal(displayPath('/work/tree-2/x', '/work/tree'), '/work/tree-2/x');
  });

  it('shows a name that starts with two dots relative, as it lies inside', () => {
    assert.equal(displayPath('/work/tree/..data', '/work/tree'), '..data');
  });
});
