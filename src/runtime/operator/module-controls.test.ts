import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModuleRequest } from '../../delivery/module-requests.ts';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import { ModuleControls } from './module-controls.ts';

const request = (fields: Partial<ModuleRequest>): ModuleRequest => ({
  maintenance: undefined,
  reconcileRequestedAt: undefined,
  lastHandledReconcileAt: undefined,
  maintenanceSince: undefined,
  generation: 1,
  ...fields,
});

function recorded(clock = new ManualClock()): { controls: ModuleControls; said: string[] } {
  const controls = new ModuleControls(clock);
  const said: string[] = [];
  controls.listen({
    maintenanceStarted: (module, m) => said.push(`start ${module} ${m.hooks} ${String(m.since)}`),
    maintenanceChanged: (module, m) => said.push(`change ${module} ${m.hooks}`),
    maintenanceEnded: (module) => said.push(`end ${module}`),
    reconcileRequested: (module, token) => said.push(`reconcile ${module} ${token}`),
  });
  return { controls, said };
}

describe('ModuleControls (docs/operations.md)', () => {
  it('tells each start, change and end of maintenance once, keeping a start time from before a restart', () => {
    const { controls, said } = recorded();
    controls.apply(
      'app',
      request({ maintenance: { hooks: 'Run' }, maintenanceSince: '1970-01-01T00:00:05Z' }),
    );
    controls.apply('app', request({ maintenance: { hooks: 'Run' }, generation: 2 }));
    controls.apply('app', request({ maintenance: { hooks: 'Stop' } }));
    assert.equal(controls.hooksHeld('app'), true);
    controls.apply('app', request({}));
    controls.apply('app', request({}));
    assert.deepEqual(said, ['start app Run 5000', 'change app Stop', 'end app']);
    assert.equal(controls.isInMaintenance('app'), false);
  });

  it('asks for each new reconcile request once; a run takes it; one already answered is not asked again', () => {
    const { controls, said } = recorded();
    controls.apply('app', request({ reconcileRequestedAt: 'a', lastHandledReconcileAt: 'a' }));
    controls.apply('app', request({ reconcileRequestedAt: 'b' }));
    controls.apply('app', request({ reconcileRequestedAt: 'b', generation: 2 }));
    assert.equal(controls.takeReconcileRequest('app'), 'b');
    assert.equal(controls.takeReconcileRequest('app'), undefined);
    controls.apply('app', request({ reconcileRequestedAt: 'b' }));
    controls.apply('app', request({ reconcileRequestedAt: 'c' }));
    assert.deepEqual(said, ['reconcile app b', 'reconcile app c']);
  });

  it('keeps a held uninstall until it is done or the module is enabled again', () => {
    const { controls } = recorded();
    controls.holdUninstall('old');
    assert.equal(controls.isUninstallHeld('old'), true);
    controls.releaseUninstall('old');
    assert.equal(controls.isUninstallHeld('old'), false);
  });
});
