import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatQueueDump } from './queue-dump.ts';
import { globalHookRun, labelOf, ManualClock, recordingHandlers } from '../../../test/queue-test-kit.ts';
import { createTask } from './task.ts';
import { fail, success } from './task-result.ts';
import { TaskQueueSet } from './task-queue-set.ts';

describe('queue dump (`queue list`, docs/observability.md "Debug socket")', () => {
  it('lists each queue with its tasks, failures and retry time, then a summary', async () => {
    const clock = new ManualClock();
    const { handlers } = recordingHandlers((task) =>
      labelOf(task) === 'sysctl-tuner' ? fail(new Error('helm upgrade failed')) : success(),
    );
    const set = new TaskQueueSet({ handlers, clock });
    const start = clock.now();
    const moduleRun = (module: string, doModuleStartup: boolean) =>
      createTask(
        'ModuleRun',
        {
          queue: 'main',
          payload: { doModuleStartup, isReloadAll: true },
          metadata: { module, event: 'OperatorStartup' },
        },
        start,
      );
    set.addLast(moduleRun('sysctl-tuner', true), moduleRun('echo', false));
    set.start();
    await clock.advance(2_000);
    set.queue('pods').addLast(globalHookRun('pods.sh', [{ binding: 'pods', type: 'Schedule' }], {}, 'pods'));
    set.queue('idle');
    await set.stop();
    const dump = set.dump(true);

    assert.deepEqual(dump.summary, {
      mainQueueTasks: 2,
      otherQueues: { active: 1, empty: 1, tasks: 1 },
      totalTasks: 3,
    });
    assert.deepEqual(dump.active[0]?.tasks[0], {
      index: 1,
      id: dump.active[0]?.tasks[0]?.id,
      type: 'ModuleRun',
      description: 'ModuleRun:main:sysctl-tuner:doStartup:OperatorStartup:failures 1:helm upgrade failed',
      attempts: 1,
      failures: 1,
      lastError: 'helm upgrade failed',
      retryAt: new Date(start + 5_000).toISOString(),
    });
    assert.equal(
      formatQueueDump(dump, clock.now()),
      [
        "Queue 'main': length 2, status: 'stop'",
        '',
        ' 1. ModuleRun:main:sysctl-tuner:doStartup:OperatorStartup:failures 1:helm upgrade failed (retry in 3s)',
        ' 2. ModuleRun:main:echo:OperatorStartup',
        '',
        "Queue 'pods': length 1, status: 'stop'",
        '',
        ' 1. GlobalHookRun:pods:kubernetes:pods.sh:pods',
        '',
        "Queue 'idle': length 0, status: 'stop'",
        '',
        'Summary:',
        "- 'main' queue: 2 tasks.",
        '- 2 other queues (1 active, 1 empty): 1 task.',
        '- total 3 tasks to handle.',
        '',
      ].join('\n'),
    );
  });

  it('shows why a queue waits', async () => {
    const clock = new ManualClock();
    const { handlers } = recordingHandlers(() => fail('exit 1'));
    const set = new TaskQueueSet({ handlers, clock });
    set.addLast(globalHookRun('a.sh', []));
    set.start();
    await clock.advance(1_500);
    assert.equal(set.dump().active[0]?.status, 'sleep after fail for 5s (3.5s left)');
    await set.stop();
  });
});
