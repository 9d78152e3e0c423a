import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BindingContext } from '../../hooks/binding-context.ts';
import { combineHookTasks } from './combine-hook-tasks.ts';
import {
  globalHookRun,
  labelOf,
  ManualClock,
  moduleRun,
  recordingHandlers,
  settle,
} from '../../../test/queue-test-kit.ts';
import { describeTask } from './task-description.ts';
import type { AnyTask } from './task.ts';
import { success, type TaskResult } from './task-result.ts';
import { TaskQueueSet } from './task-queue-set.ts';

const event = (binding: string, name: string): BindingContext => ({
  binding,
  type: 'Event',
  watchEvent: 'Added',
  object: { metadata: { name } },
});
const group = (binding: string, groupName: string): BindingContext => ({ binding, type: 'Group', groupName });

function contextsOf(task: AnyTask | undefined): readonly BindingContext[] {
  assert.ok(task?.type === 'GlobalHookRun' || task?.type === 'ModuleHookRun');
  return task.payload.bindingContexts;
}

describe('combineHookTasks (docs/hooks.md "Binding contexts")', () => {
  it('concatenates the contexts of the following tasks of the same hook, up to another hook', () => {
    const tasks = [
      globalHookRun('pods.sh', [event('pods', 'a')]),
      globalHookRun('pods.sh', [event('pods', 'b')]),
      globalHookRun('pods.sh', [event('cms', 'c')]),
      globalHookRun('other.sh', [event('pods', 'd')]),
      globalHookRun('pods.sh', [event('pods', 'e')]),
    ];
    const combined = combineHookTasks(tasks);
    assert.equal(combined?.combined, 2);
    assert.deepEqual(contextsOf(combined.task), [event('pods', 'a'), event('pods', 'b'), event('cms', 'c')]);
    assert.deepEqual(combined.task.metadata.bindings, ['pods', 'cms']);
    assert.equal(combined.task.id, tasks[0]!.id);
    assert.equal(describeTask(combined.task), 'GlobalHookRun:main:kubernetes:pods.sh:cms,pods in 3 contexts');
  });

  it('keeps only the last of consecutive contexts of one group', () => {
    const tasks = [
      globalHookRun('g.sh', [group('pods', 'main')]),
      globalHookRun('g.sh', [group('cms', 'main')]),
      globalHookRun('g.sh', [event('secrets', 's1')]),
      globalHookRun('g.sh', [group('pods', 'main')]),
    ];
    const combined = combineHookTasks(tasks);
    assert.deepEqual(contextsOf(combined?.task), [
      group('cms', 'main'),
      event('secrets', 's1'),
      group('pods', 'main'),
    ]);
  });

  it('does not combine v0 hooks, other task types, or Synchronizations that wait differently', () => {
    const v0 = globalHookRun('v0.sh', [event('a', 'x')]);
    const v0Task = { ...v0, payload: { ...v0.payload, hookVersion: 'v0' as const } };
    assert.equal(combineHookTasks([v0Task, v0Task]), undefined);
    assert.equal(combineHookTasks([moduleRun('a'), moduleRun('a')]), undefined);
    const sync = (wait: boolean): AnyTask => {
      const task = globalHookRun('s.sh', [{ binding: 'pods', type: 'Synchronization', objects: [] }]);
      const synchronization = { waitForSynchronization: wait, executeOnSynchronization: true };
      return { ...task, payload: { ...task.payload, synchronization } };
    };
    assert.equal(combineHookTasks([sync(true), sync(false)]), undefined);
    assert.equal(combineHookTasks([sync(true), sync(true)])?.combined, 1);
  });
});

describe('TaskQueue combines piled-up hook runs', () => {
  it('runs the events queued while the hook ran as one run', async () => {
    let release: () => void = () => undefined;
    const blocked = new Promise<TaskResult>((resolve) => {
      release = () => {
        resolve(success());
      };
    });
    const { handlers, ran } = recordingHandlers(() => (ran.length === 1 ? blocked : success()));
    const set = new TaskQueueSet({ handlers, clock: new ManualClock() });
    set.start();
    set.addLast(globalHookRun('pods.sh', [event('pods', 'a')]));
    await settle();
    set.addLast(
      globalHookRun('pods.sh', [event('pods', 'b')]),
      globalHookRun('pods.sh', [event('pods', 'c')]),
      globalHookRun('pods.sh', [event('pods', 'd')]),
    );
    release();
    await settle();
    assert.deepEqual(ran.map(labelOf), ['pods.sh', 'pods.sh']);
    assert.deepEqual(contextsOf(ran[1]), [event('pods', 'b'), event('pods', 'c'), event('pods', 'd')]);
    assert.equal(set.length('main'), 0);
    await set.stop();
  });
});
