import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../core/json.ts';
import { resourceVersionOf } from '../../core/object-key.ts';
import { createLogger } from '../../observability/logger.ts';
import { DriftTrigger } from './drift-trigger.ts';

/** A Deployment as a watch delivers it: helm owns spec.replicas. */
function web(replicas: number, resourceVersion: string, ready = 0): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'demo',
      resourceVersion,
      managedFields: [{ manager: 'helm', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
    },
    spec: { replicas },
    status: { readyReplicas: ready },
  };
}

/** A clock whose timers fire when the test says. */
function manualClock(): { setTimer: (fire: () => void, ms: number) => () => void; fire: () => number[] } {
  let timers: { fire: () => void; ms: number }[] = [];
  return {
    setTimer: (fire, ms) => {
      const timer = { fire, ms };
      timers.push(timer);
      return () => {
        timers = timers.filter((other) => other !== timer);
      };
    },
    fire: () => {
      const due = timers;
      timers = [];
      for (const timer of due) timer.fire();
      return due.map((timer) => timer.ms);
    },
  };
}

const logger = createLogger({ type: 'json', level: 'error', noTime: true, sink: { write: () => undefined } });
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('DriftTrigger', () => {
  it('checks an object once per burst of changes to fields the release sets, not for status updates', async () => {
    const clock = manualClock();
    const checked: string[] = [];
    const trigger = new DriftTrigger({
      clock,
      debounceMs: 1500,
      logger,
      check: (module, object) => {
        checked.push(`${module} ${resourceVersionOf(object)}`);
        return Promise.resolve(undefined);
      },
    });
    trigger.changed('app', { type: 'Modified', object: web(2, '1') });
    assert.deepEqual(clock.fire(), [1500], 'the first event seen is checked');
    await settle();
    trigger.changed('app', { type: 'Modified', object: web(2, '2', 1) });
    assert.deepEqual(clock.fire(), [], 'a status update is not');
    trigger.changed('app', { type: 'Modified', object: web(5, '3', 1) });
    trigger.changed('app', { type: 'Modified', object: web(6, '4', 1) });
    assert.deepEqual(clock.fire(), [1500]);
    await settle();
    trigger.changed('app', { type: 'Deleted', object: web(6, '4', 1) });
    clock.fire();
    await settle();
    assert.deepEqual(checked, ['app 1', 'app 4', 'app 4']);
  });

  it('checks again when the check left the object for later, until stopped', async () => {
    const clock = manualClock();
    let checks = 0;
    const trigger = new DriftTrigger({
      clock,
      logger,
      check: () => {
        checks++;
        return Promise.resolve({ retryInMs: 10_000 });
      },
    });
    trigger.changed('app', { type: 'Modified', object: web(5, '1') });
    clock.fire();
    await settle();
    assert.deepEqual(clock.fire(), [10_000]);
    await settle();
    trigger.stop();
    assert.deepEqual(clock.fire(), []);
    assert.equal(checks, 2);
  });
});

describe('DriftTrigger.forget', () => {
  it("drops a removed module's objects and its pending checks, and leaves the others'", async () => {
    const clock = manualClock();
    const checked: string[] = [];
    const trigger = new DriftTrigger({
      clock,
      debounceMs: 1500,
      logger,
      check: (module) => {
        checked.push(module);
        return Promise.resolve(undefined);
      },
    });
    trigger.changed('app', { type: 'Modified', object: web(2, '1') });
    trigger.changed('other', { type: 'Modified', object: web(2, '1') });
    assert.equal(trigger.seenCount, 2);
    trigger.forget('app');
    assert.equal(trigger.seenCount, 1);
    clock.fire();
    await settle();
    assert.deepEqual(checked, ['other']);
  });
});
