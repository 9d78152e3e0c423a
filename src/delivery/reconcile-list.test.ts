import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../core/json.ts';
import { reconcileList } from './reconcile-list.ts';

function cm(namespace: string, name: string, resourceVersion: string): JsonObject {
  return { kind: 'ConfigMap', metadata: { namespace, name, resourceVersion } };
}

describe('reconcileList: what changed while the watch was down', () => {
  it('reports Added and Modified in key order, then Deleted with the last known object', () => {
    const known = new Map([
      ['a/keep', cm('a', 'keep', '1')],
      ['a/change', cm('a', 'change', '2')],
      ['b/gone', cm('b', 'gone', '3')],
      ['a/also-gone', cm('a', 'also-gone', '4')],
    ]);
    const fresh = [cm('c', 'new', '9'), cm('a', 'keep', '1'), cm('a', 'change', '8'), cm('a', 'born', '7')];
    const changes = reconcileList(known, fresh).map(
      ({ type, object }) => `${type} ${JSON.stringify(object.metadata)}`,
    );
    assert.deepEqual(changes, [
      `Added ${JSON.stringify(cm('a', 'born', '7').metadata)}`,
      `Modified ${JSON.stringify(cm('a', 'change', '8').metadata)}`,
      `Added ${JSON.stringify(cm('c', 'new', '9').metadata)}`,
      `Deleted ${JSON.stringify(cm('a', 'also-gone', '4').metadata)}`,
      `Deleted ${JSON.stringify(cm('b', 'gone', '3').metadata)}`,
    ]);
  });

  it('reports nothing when nothing changed', () => {
    assert.deepEqual(reconcileList(new Map([['/x', cm('', 'x', '5')]]), [cm('', 'x', '5')]), []);
  });
});
