import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModuleEventLog } from './module-event-log.ts';
import { newModuleRecord, type ModuleRecord } from './module-status.ts';


function delivered(at: number, helmRevision: number): ModuleRecord {
  return {
    ...newModuleRecord(),
    delivered: { at, checksum: 'c', helmRevision, gitRevision: '0123456789abcdef0123', objects: 2 },
  };
}

describe('ModuleEventLog: the platform timeline (docs/ui.md "Timeline")', () => {
  it('holds deliveries once each and Events with their kinds, newest first, narrowed by module and kind', () => {
    let now = 1000;
    const log = new ModuleEventLog({ now: () => now });
    log.changed('web', delivered(500, 1));
    log.changed('web', delivered(500, 1));
    now = 2000;
    log.event('web', { type: 'Warning', reason: 'HookFailed', action: 'Run', note: 'exit 1' });
    now = 3000;
    log.event('db', { type: 'Normal', reason: 'MaintenanceStarted', action: 'Maintenance', note: 'on' });
    log.event('web', { type: 'Normal', reason: 'Recovered', action: 'Run', note: 'ok' });
    assert.deepEqual(
      log.timeline().map((entry) => [entry.module, entry.kind, entry.reason]),
      [
        ['web', 'recovery', 'Recovered'],
        ['db', 'maintenance', 'MaintenanceStarted'],
        ['web', 'failure', 'HookFailed'],
        ['web', 'delivery', 'Delivered'],
      ],
    );
    assert.equal(
      log.timeline({ kind: 'delivery' })[0]?.note,
      'delivered as release revision 1 from Git revision 0123456789ab, 2 object(s)',
    );
    assert.deepEqual(
      log.timeline({ module: 'db' }).map((entry) => entry.reason),
      ['MaintenanceStarted'],
    );
  });

  it('keeps the newest 2,000 lines', () => {
    const log = new ModuleEventLog();
    for (let index = 0; index < 2100; index++)
      log.event('web', { type: 'Normal', reason: 'Healthy', action: 'HealthCheck', note: String(index) });
    const timeline = log.timeline();
    assert.equal(timeline.length, 2000);
    assert.equal(timeline[0]?.note, '2099');
    assert.equal(timeline.at(-1)?.note, '100');
  });
});
