import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOperatorMetrics, LIVE_TICK_MS, type ScheduleEvery } from './metrics.ts';

describe('operator metrics', () => {
  it('puts the configured prefix on every built-in name', async () => {
    const metrics = createOperatorMetrics({ prefix: 'dev_cluster_', queueActionsMetrics: true });
    metrics.liveTick();
    assert.match(await metrics.registry.metrics(), /^dev_cluster_live_ticks 1$/mu);
    assert.equal(metrics.isBuiltIn('dev_cluster_live_ticks'), true);
    assert.equal(metrics.isBuiltIn('addon_operator_live_ticks'), false);
  });

  it('records a global hook run without a module label and a module hook run with one', async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    const labels = { hook: '000-a.sh', binding: 'pods', activation: 'kubernetes', queue: 'main' };
    metrics.hookRun(labels, {
      seconds: 0.3,
      outcome: 'allowed-error',
      userCpu: 0.1,
      sysCpu: 0.05,
      maxRssBytes: 4096,
    });
    metrics.hookRun({ ...labels, module: 'echo' }, { seconds: 0.2, outcome: 'error' });
    const text = await metrics.registry.metrics();
    const global = 'hook="000-a.sh",binding="pods",activation="kubernetes",queue="main"';
    assert.match(
      text,
      new RegExp(`^addon_operator_global_hook_run_allowed_errors_total\\{${global}\\} 1$`, 'mu'),
    );
    assert.match(
      text,
      new RegExp(`^addon_operator_global_hook_run_max_rss_bytes\\{${global}\\} 4096$`, 'mu'),
    );
    assert.match(
      text,
      new RegExp(`^addon_operator_global_hook_run_user_cpu_seconds_count\\{${global}\\} 1$`, 'mu'),
    );
    assert.match(
      text,
      new RegExp(`^addon_operator_module_hook_run_errors_total\\{module="echo",${global}\\} 1$`, 'mu'),
    );
    assert.match(
      text,
      new RegExp(`^addon_operator_module_hook_run_seconds_count\\{module="echo",${global}\\} 1$`, 'mu'),
    );
    assert.doesNotMatch(text, /module_hook_run_user_cpu_seconds_count/u);
  });

  it('counts convergence seconds and runs per activation', async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    metrics.convergence('OperatorStartup', 2.5);
    metrics.convergence('OperatorStartup', 1.5);
    const text = await metrics.registry.metrics();
    assert.match(text, /^addon_operator_convergence_seconds\{activation="OperatorStartup"\} 4$/mu);
    assert.match(text, /^addon_operator_convergence_total\{activation="OperatorStartup"\} 2$/mu);
  });

  it('leaves out queue action durations when QUEUE_ACTIONS_METRICS is no', async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: false });
    metrics.queueAction('main', 'AddLast', 0.001);
    assert.doesNotMatch(await metrics.registry.metrics(), /tasks_queue_action_duration_seconds/u);
    assert.equal(metrics.isBuiltIn('addon_operator_tasks_queue_action_duration_seconds'), false);
  });

  it('ticks live_ticks every 10 seconds through the injected timer until stopped', async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    let tick: (() => void) | undefined;
    let every = 0;
    let stopped = false;
    const schedule: ScheduleEvery = (ms, callback) => {
      every = ms;
      tick = callback;
      return () => {
        stopped = true;
      };
    };
    const stop = metrics.startLiveTicks(schedule);
    tick?.();
    tick?.();
    stop();
    assert.equal(every, LIVE_TICK_MS);
    assert.equal(stopped, true);
    assert.match(await metrics.registry.metrics(), /^addon_operator_live_ticks 2$/mu);
  });
});
