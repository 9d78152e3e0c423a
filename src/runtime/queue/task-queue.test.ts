import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOperatorMetrics } from '../../observability/metrics.ts';
import { labelOf, ManualClock, moduleRun, recordingHandlers, settle } from '../../../test/queue-test-kit.ts';
import type { AnyTask } from './task.ts';
import { fail, repeat, success } from './task-result.ts';
import { TaskQueueSet } from './task-queue-set.ts';

function startSet(handlers: ReturnType<typeof recordingHandlers>['handlers'], clock = new ManualClock()) {
  const allowed: AnyTask[] = [];
  const set = new TaskQueueSet({
    handlers,
    clock,
    observer: {
      onAllowedFailure: (task) => {
        allowed.push(task);
      },
    },
  });
  set.start();
  return { set, clock, allowed };
}

describe('TaskQueue order (docs/lifecycle.md "Tasks and queues")', () => {
  it('runs head tasks first, then after-tasks, then the rest, then tail tasks', async () => {
    const [h1, h2, x1, x2, t1] = ['h1', 'h2', 'x1', 'x2', 't1'].map((name) => moduleRun(name));
    const { handlers, ran } = recordingHandlers((task) =>
      labelOf(task) === 'a'
        ? success({ headTasks: [h1!, h2!], afterTasks: [x1!, x2!], tailTasks: [t1!] })
        : success(),
    );
    const { set } = startSet(handlers);
    set.addLast(moduleRun('a'), moduleRun('b'));
    await settle();
    assert.deepEqual(ran.map(labelOf), ['a', 'h1', 'h2', 'x1', 'x2', 'b', 't1']);
    assert.equal(set.length('main'), 0);
    await set.stop();
  });

  it('keeps a repeated task: its head tasks run before it runs again', async () => {
    let calls = 0;
    const { handlers, ran } = recordingHandlers((task) => {
      if (labelOf(task) !== 'converge') return success();
      calls += 1;
      return calls === 1 ? repeat({ headTasks: [moduleRun('beforeAll')] }) : success();
    });
    const { set, clock } = startSet(handlers);
    set.addLast(moduleRun('converge'), moduleRun('next'));
    await clock.advance(25);
    assert.deepEqual(ran.map(labelOf), ['converge', 'beforeAll', 'converge', 'next']);
    assert.deepEqual(
      ran.filter((task) => labelOf(task) === 'converge').map((task) => task.attempts),
      [1, 2],
    );
    await set.stop();
  });

  it('adds tasks at the head, at the tail and after a queued task', () => {
    const { handlers } = recordingHandlers();
    const set = new TaskQueueSet({ handlers, clock: new ManualClock() });
    const b = moduleRun('b');
    set.addLast(moduleRun('a'), b, moduleRun('c'));
    set.addFirst(moduleRun('first'), moduleRun('second'));
    assert.equal(set.addAfter(b.id, moduleRun('afterB')), true);
    assert.equal(set.addAfter('no-such-id', moduleRun('lost')), false);
    assert.deepEqual(set.main.tasks().map(labelOf), ['first', 'second', 'a', 'b', 'afterB', 'c']);
    assert.equal(set.find('ModuleRun', (task) => task.metadata.module === 'c')?.metadata.module, 'c');
    assert.equal(set.find('ModuleDelete'), undefined);
    const removed = set.remove((task) => labelOf(task).startsWith('a'));
    assert.deepEqual(removed.map(labelOf), ['a', 'afterB']);
    assert.equal(set.length('main'), 4);
  });
});

describe('TaskQueue failures', () => {
  it('retries a failed task at the head after 5, 10, 20, 30, 30 s', async () => {
    let failures = 0;
    const { handlers, ran } = recordingHandlers((task) => {
      if (labelOf(task) !== 'broken' || failures === 5) return success();
      failures += 1;
      return fail(new Error(`attempt ${failures} failed`));
    });
    const { set, clock } = startSet(handlers);
    set.addLast(moduleRun('broken'), moduleRun('behind'));
    await settle();
    const delays: number[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const head = set.main.entries()[0]!;
      assert.equal(head.failures, i);
      assert.equal(ran.length, i, 'the task behind waits');
      delays.push(head.notBefore - clock.now());
      await clock.advance(head.notBefore - clock.now());
    }
    assert.deepEqual(delays, [5_000, 10_000, 20_000, 30_000, 30_000]);
    assert.deepEqual(ran.map(labelOf), [...Array<string>(6).fill('broken'), 'behind']);
    await set.stop();
  });

  it('treats a thrown error as a failure', async () => {
    const { handlers } = recordingHandlers(() => {
      throw new Error('boom');
    });
    const { set } = startSet(handlers);
    set.addLast(moduleRun('a'));
    await settle();
    const head = set.main.entries()[0]!;
    assert.equal(head.failures, 1);
    assert.equal((head.lastError as Error).message, 'boom');
    await set.stop();
  });

  it('counts and drops a failed task with allowFailure instead of retrying it', async () => {
    const { handlers, ran } = recordingHandlers((task) =>
      labelOf(task) === 'flaky' ? fail('exit 1') : success(),
    );
    const { set, allowed } = startSet(handlers);
    const flaky = { ...moduleRun('flaky'), metadata: { module: 'flaky', allowFailure: true } };
    set.addLast(flaky, moduleRun('next'));
    await settle();
    assert.deepEqual(ran.map(labelOf), ['flaky', 'next']);
    assert.deepEqual(allowed.map(labelOf), ['flaky']);
    assert.equal(set.length('main'), 0);
    await set.stop();
  });

  it('does not block other queues while one retries', async () => {
    const { handlers, ran } = recordingHandlers((task) =>
      labelOf(task) === 'broken' ? fail('no') : success(),
    );
    const { set, clock } = startSet(handlers);
    set.addLast(moduleRun('broken'), moduleRun('stuck'));
    await settle();
    set.addLast(moduleRun('elsewhere', 'pods-queue'));
    await clock.advance(1_000);
    assert.deepEqual(ran.map(labelOf), ['broken', 'elsewhere']);
    assert.equal(set.length('main'), 2);
    await set.stop();
  });
});

describe('TaskQueue stop', () => {
  it('aborts the running handler, waits for it and takes no further task', async () => {
    let sawAbort = false;
    const { handlers, ran } = recordingHandlers(
      (_task, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve(success());
          });
        }),
    );
    const { set } = startSet(handlers);
    set.addLast(moduleRun('long'), moduleRun('never'));
    await settle();
    set.remove(() => true);
    assert.deepEqual(set.main.tasks().map(labelOf), ['long'], 'the running task is not removed');
    await set.stop();
    assert.equal(sawAbort, true);
    assert.deepEqual(ran.map(labelOf), ['long']);
    assert.equal(set.main.status.kind, 'stop');
  });
});

describe('TaskQueue observer and cancelling', () => {
  it('reports queue lengths and wait times, and a removed retrying task stops blocking', async () => {
    const lengths: string[] = [];
    const waits: string[] = [];
    const clock = new ManualClock();
    const { handlers, ran } = recordingHandlers((task) =>
      labelOf(task) === 'converge' ? fail('no') : success(),
    );
    const set = new TaskQueueSet({
      handlers,
      clock,
      observer: {
        onQueueLength: (queue, length) => lengths.push(`${queue}=${length}`),
        onTaskWait: (task, waitMs) => waits.push(`${labelOf(task)}:${waitMs}`),
      },
    });
    set.addLast(
      moduleRun('converge', 'main', clock.now() - 300),
      moduleRun('next', 'main', clock.now() - 700),
    );
    set.start();
    await clock.advance(1_000);
    assert.deepEqual(ran.map(labelOf), ['converge']);
    set.remove((task) => task.type === 'ModuleRun' && task.metadata.module === 'converge');
    await settle();
    assert.deepEqual(ran.map(labelOf), ['converge', 'next']);
    assert.deepEqual(waits, ['converge:300', 'next:1700']);
    assert.deepEqual(lengths.at(-1), 'main=0');
    assert.ok(lengths.includes('main=2'));
    await set.stop();
  });
});

describe('TaskQueue action durations (docs/observability.md "Metrics")', () => {
  it("reports each operation with its queue and shell-operator's action name", () => {
    const actions: string[] = [];
    const { handlers } = recordingHandlers();
    const set = new TaskQueueSet({
      handlers,
      clock: new ManualClock(),
      observer: {
        onQueueAction: (queue, action, seconds) => {
          assert.ok(seconds >= 0);
          actions.push(`${queue}:${action}`);
        },
      },
    });
    const first = moduleRun('a');
    set.addLast(first, moduleRun('b', 'ticks'));
    set.addFirst(moduleRun('c'));
    set.addAfter(first.id, moduleRun('d'));
    set.remove((task) => labelOf(task) === 'd', ['main']);
    set.find('ModuleRun', (task) => task.metadata.module === 'b');
    assert.deepEqual(actions, [
      'main:AddLast',
      'ticks:AddLast',
      'main:AddFirst',
      'main:AddAfter',
      'main:Filter',
      'main:Iterate',
      'ticks:Iterate',
    ]);
    assert.deepEqual(set.queue('main').tasks().map(labelOf), ['c', 'a']);
  });

  it('lands in tasks_queue_action_duration_seconds unless QUEUE_ACTIONS_METRICS is no', async () => {
    for (const queueActionsMetrics of [true, false]) {
      const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics });
      const set = new TaskQueueSet({
        handlers: recordingHandlers().handlers,
        clock: new ManualClock(),
        observer: {
          onQueueAction: (queue, action, seconds) => {
            metrics.queueAction(queue, action, seconds);
          },
        },
      });
      set.addLast(moduleRun('a'), moduleRun('b'));
      const text = await metrics.registry.metrics();
      const count =
        /^addon_operator_tasks_queue_action_duration_seconds_count\{queue_name="main",queue_action="AddLast"\} (\d+)$/mu.exec(
          text,
        )?.[1];
      assert.equal(count, queueActionsMetrics ? '2' : undefined);
    }
  });
});
