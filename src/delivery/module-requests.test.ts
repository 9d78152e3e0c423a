import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moduleRequestOf } from './module-requests.ts';

describe('moduleRequestOf: what a Module object asks (docs/operations.md)', () => {
  it("reads kaddon's and addon-operator's spelling of maintenance, and the hooks choice", () => {
    assert.deepEqual(moduleRequestOf({ spec: { maintenance: 'On' } }).maintenance, { hooks: 'Run' });
    assert.deepEqual(
      moduleRequestOf({ spec: { maintenance: 'NoResourceReconciliation', maintenanceHooks: 'Stop' } })
        .maintenance,
      { hooks: 'Stop' },
    );
    assert.equal(moduleRequestOf({ spec: { maintenance: 'Off' } }).maintenance, undefined);
    assert.equal(moduleRequestOf({}).maintenance, undefined);
  });

  it('takes a reconcile request, what status answered, and the generation from an object edited by hand', () => {
    const request = moduleRequestOf({
      metadata: {
        generation: 4,
        annotations: { 'reconcile.kaddon.dev/requestedAt': '2026-12-06T03:00:00Z' },
      },
      status: { lastHandledReconcileAt: 'before', maintenance: { since: '2026-12-06T02:00:00Z' } },
    });
    assert.deepEqual(request, {
      maintenance: undefined,
      reconcileRequestedAt: '2026-12-06T03:00:00Z',
      lastHandledReconcileAt: 'before',
      maintenanceSince: '2026-12-06T02:00:00Z',
      generation: 4,
    });
  });

  it('ignores what is malformed: wrong types, an empty or an oversized request', () => {
    const odd = moduleRequestOf({
      spec: { maintenance: ['On'] },
      metadata: { generation: 'x', annotations: { 'reconcile.kaddon.dev/requestedAt': 'x'.repeat(257) } },
      status: 'broken',
    });
    assert.deepEqual(odd, {
      maintenance: undefined,
      reconcileRequestedAt: undefined,
      lastHandledReconcileAt: undefined,
      maintenanceSince: undefined,
      generation: 1,
    });
    assert.equal(
      moduleRequestOf({ metadata: { annotations: { 'reconcile.kaddon.dev/requestedAt': '' } } })
        .reconcileRequestedAt,
      undefined,
    );
  });
});
