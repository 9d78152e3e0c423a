import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWithin } from './path-containment.ts';

describe('isWithin', () => {
  it('holds for the root itself and anything below it', () => {
    assert.equal(isWithin('/tree', '/tree'), true);
    assert.equal(isWithin('/tree', '/tree/modules/010-a/values.yaml'), true);
    assert.equal(isWithin('/tree/', '/tree/modules'), true);
  });

  it('refuses the parent, siblings and paths that climb out through ..', () => {
    assert.equal(isWithin('/tree', '/'), false);
    assert.equal(isWithin('/tree', '/tree-other/file'), false);
    assert.equal(isWithin('/tree', '/tree/../etc/passwd'), false);
    assert.equal(isWithin('/tree/modules', '/tree/components/x'), false);
  });

  it('keeps a file whose name starts with two dots inside', () => {
    assert.equal(isWithin('/tree', '/tree/..hidden'), true);
    assert.equal(isWithin('/tree', '/tree/..'), false);
  });
});
