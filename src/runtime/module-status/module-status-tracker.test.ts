import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import { HookError } from '../../hooks/run/run-hook-error.ts';
import type { ModuleEvent } from './module-status-tracker.ts';
import { ModuleStatusTracker } from './module-status-tracker.ts';
import type { ReadyState } from './module-status.ts';

function tracked() {
  const clock = new ManualClock();
  const states: string[] = [];
  const events: ModuleEvent[] = [];
  const removed: string[] = [];
  const tracker = new ModuleStatusTracker({
    clock,
    healthTimeoutMs: () => 60_000,
    existing: ['gone'],
    listeners: [
      {
        changed: (module: string, _record: unknown, ready: ReadyState) => {
          states.push(`${module} ${ready.status} ${ready.reason}`);
        },
        removed: (module: string) => {
          removed.push(module);
        },
        event: (_module: string, event: ModuleEvent) => {
          events.push(event);
        },
      },
    ],
  });
  return { clock, states, events, removed, tracker };
}

const hookFailure = new HookError(
  'hook-failed',
  { kind: 'hook', name: 'hooks/check.sh' },
  'exited with code 1',
  'Look at its output.',
  { stderrTail: 'certificate missing' },
);

describe('ModuleStatusTracker', () => {
  it('a failed run is HookFailed with the stderr tail; the next success says Recovered', () => {
    const { tracker, states, events } = tracked();
    tracker.setModules(['echo'], ['echo']);
    tracker.running('echo');
    tracker.failed('echo', hookFailure);
    assert.equal(tracker.readyState('echo')?.reason, 'HookFailed');
    assert.match(tracker.readyState('echo')?.message ?? '', /certificate missing/);
    tracker.running('echo');
    tracker.failed('echo', hookFailure);
    tracker.succeeded('echo');
    tracker.delivered('echo', { checksum: 'c1', helmRevision: 2, objects: 0 });
    // A retry keeps showing the failure until a run succeeds.
    assert.deepEqual(states, [
      'echo Unknown Progressing',
      'echo False HookFailed',
      'echo Unknown Progressing',
      'echo True Succeeded',
    ]);
    assert.deepEqual(
      events.map((event) => `${event.type} ${event.reason}`),
      ['Warning HookFailed', 'Warning HookFailed', 'Normal Recovered'],
    );
  });

  it('objects still unhealthy at the health timeout make HealthCheckFailed; health coming back makes it Ready', async () => {
    const { tracker, events, clock } = tracked();
    tracker.setModules(['web'], ['web']);
    tracker.running('web');
    tracker.succeeded('web');
    tracker.delivered('web', { checksum: 'c1', helmRevision: 1, objects: 1 });
    tracker.health('web', {
      status: 'InProgress',
      message: 'Deployment ns/web: 0 of 2 updated replicas available',
    });
    assert.equal(tracker.readyState('web')?.reason, 'Progressing');
    await clock.advance(59_000);
    assert.equal(tracker.readyState('web')?.reason, 'Progressing');
    await clock.advance(1_000);
    assert.deepEqual(tracker.readyState('web'), {
      status: 'False',
      reason: 'HealthCheckFailed',
      message: 'Deployment ns/web: 0 of 2 updated replicas available',
      beside: 'Stalled',
    });
    tracker.health('web', { status: 'Current', message: '' });
    assert.equal(tracker.isReady('web'), true);
    assert.deepEqual(
      events.map((event) => event.reason),
      ['HealthCheckFailed', 'Healthy'],
    );
  });

  it('objects left drifted (KADDON_DRIFT_MODE=warn) make the module not Ready until a check finds them as delivered', () => {
    const { tracker, events } = tracked();
    tracker.setModules(['web'], ['web']);
    tracker.running('web');
    tracker.succeeded('web');
    tracker.delivered('web', { checksum: 'c1', helmRevision: 1, objects: 1 });
    tracker.health('web', { status: 'Current', message: '' });
    assert.equal(tracker.isReady('web'), true);
    tracker.drifted('web', { objects: ['ConfigMap ns/settings: /data/level'], corrected: true });
    assert.equal(tracker.isReady('web'), true, 'a corrected drift leaves the module as delivered');
    tracker.drifted('web', { objects: ['ConfigMap ns/settings: /data/level'], corrected: false });
    assert.deepEqual(tracker.readyState('web'), {
      status: 'False',
      reason: 'Drifted',
      message:
        '1 object(s) differ from the release (KADDON_DRIFT_MODE=warn leaves them): ConfigMap ns/settings: /data/level',
      beside: undefined,
    });
    tracker.inSync('web');
    assert.equal(tracker.isReady('web'), true);
    assert.deepEqual(
      events.map((event) => event.reason),
      ['DriftCorrected', 'DriftDetected'],
    );
  });

  it('a release revision kaddon did not write is told in a ReleaseTakenBack Event', () => {
    const { tracker, events } = tracked();
    tracker.setModules(['web'], ['web']);
    tracker.releaseTakenBack('web', {
      from: 4,
      to: 5,
      why: "its chart is 'intruder', not the module's release chart",
    });
    assert.deepEqual(
      events.map((event) => `${event.type} ${event.reason} ${event.note}`),
      [
        "Warning ReleaseTakenBack release revision 4 was not written by kaddon (its chart is 'intruder', not the module's release chart); delivered the tree's state as revision 5",
      ],
    );
  });

  it('disabled modules say Disabled; modules gone from the tree, and objects of an earlier run, are removed', () => {
    const { tracker, removed } = tracked();
    tracker.setModules(['a', 'b'], ['a']);
    assert.equal(tracker.readyState('b')?.reason, 'Disabled');
    assert.deepEqual(removed, ['gone']);
    tracker.setModules(['a'], ['a']);
    assert.deepEqual(removed, ['gone', 'b']);
    assert.equal(tracker.readyState('b'), undefined);
  });
});
