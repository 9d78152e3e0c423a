import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NotificationEvent } from '../../observability/notifications/notification-event.ts';
import { ModuleNotifications } from './module-notifications.ts';
import { ModuleStatusTracker } from './module-status-tracker.ts';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import { HookError } from '../../hooks/run/run-hook-error.ts';

const hookFailure = new HookError(
  'hook-failed',
  { kind: 'hook', name: 'hooks/check.sh' },
  'exited with code 1',
  'Look at its output.',
  { stderrTail: 'broken' },
);

function tracked(): {
  tracker: ModuleStatusTracker;
  sent: NotificationEvent[];
  adapter: ModuleNotifications;
} {
  const sent: NotificationEvent[] = [];
  const clock = new ManualClock();
  const adapter = new ModuleNotifications(
    { record: (event) => sent.push(event) },
    () => 'abc123',
    () => clock.now(),
  );
  const tracker = new ModuleStatusTracker({
    listeners: [adapter],
    healthTimeoutMs: () => 60_000,
    followsHealth: false,
    clock,
  });
  return { tracker, sent, adapter };
}

describe('ModuleNotifications: module status as notification events (docs/notifications.md)', () => {
  it('turns failures, recoveries, maintenance and held uninstalls into their kinds, with the revision', () => {
    const { tracker, sent } = tracked();
    tracker.setModules(['app'], ['app']);
    tracker.running('app');
    tracker.failed('app', hookFailure);
    tracker.succeeded('app');
    tracker.maintenance('app', { since: 0, hooks: 'Run' });
    tracker.uninstallHeld('app', 'held');
    tracker.maintenance('app', undefined);
    assert.deepEqual(
      sent.map((event) => [event.kind, event.reason, event.revision]),
      [
        ['failure', 'HookFailed', 'abc123'],
        ['recovery', 'Recovered', 'abc123'],
        ['maintenance-start', 'MaintenanceStarted', 'abc123'],
        ['held-uninstall', 'UninstallHeld', 'abc123'],
        ['maintenance-end', 'MaintenanceEnded', 'abc123'],
      ],
    );
  });

  it('sends a delivery once per delivery, and says which modules are failing for the restart summary', () => {
    const { tracker, sent, adapter } = tracked();
    tracker.setModules(['app', 'bad', 'off'], ['app', 'bad']);
    tracker.delivered('app', { checksum: 'c1', helmRevision: 3, objects: 2 });
    tracker.health('app', { status: 'Current', message: '' });
    tracker.failed('bad', hookFailure);
    assert.deepEqual(
      sent.filter((event) => event.kind === 'delivery').map((event) => event.message),
      ['delivered as release revision 3, 2 object(s)'],
    );
    assert.deepEqual(
      adapter.conditions().map(({ module, failing }) => [module, failing]),
      [
        ['app', false],
        ['bad', true],
        ['off', false],
      ],
    );
  });
});
