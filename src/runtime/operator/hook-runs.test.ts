import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HookRunResult } from '../../hooks/run/run-hook.ts';
import type { LoadedHook } from '../lifecycle-hooks.ts';
import { hookRunRecord, HookRuns } from './hook-runs.ts';
import { initialOperatorState, type OperatorContext } from './operator-context.ts';
import { dropRunsOfRemovedHooks } from './run-hooks.ts';

function result(fields: Partial<HookRunResult>): HookRunResult {
  return {
    ok: false,
    exitCode: 0,
    signal: undefined,
    timedOut: false,
    durationMs: 0,
    usage: undefined,
    output: { stdout: '', stderr: '' },
    valuesPatchText: '',
    configPatchText: '',
    metricsText: '',
    kubernetesPatchText: '',
    error: undefined,
    ...fields,
  };
}

const endedAt = Date.parse('2024-05-01T10:00:01.500Z');

function run(binding: string): ReturnType<typeof hookRunRecord> {
  return hookRunRecord(binding, result({ ok: true }), { durationMs: 1500, endedAt });
}

describe('HookRuns', () => {
  it('keeps the last 10 runs of each hook, newest first', () => {
    const runs = new HookRuns();
    for (let index = 1; index <= 12; index++)
      runs.add('web', 'hooks/a.sh', run(`schedule run-${String(index)}`));
    runs.add(undefined, 'hooks/a.sh', run('onStartup'));
    const bindings = runs.last('web', 'hooks/a.sh').map((entry) => entry.binding);
    assert.equal(bindings.length, 10);
    assert.equal(bindings[0], 'schedule run-12');
    assert.equal(bindings[9], 'schedule run-3');
    assert.deepEqual(
      runs.last(undefined, 'hooks/a.sh').map((entry) => entry.binding),
      ['onStartup'],
    );
    assert.deepEqual(runs.last('db', 'hooks/a.sh'), []);
  });

  it('records when a run started, how long it took, how it ended and the end of its output', () => {
    const failed = hookRunRecord(
      'beforeHelm',
      result({ exitCode: 1, output: { stdout: 'checking', stderr: 'broken: missing' } }),
      { durationMs: 1500.4, endedAt },
    );
    assert.deepEqual(failed, {
      binding: 'beforeHelm',
      startedAt: '2024-05-01T10:00:00.000Z',
      durationMs: 1500,
      outcome: 'exit 1',
      stdout: 'checking',
      stderr: 'broken: missing',
    });
    const outcome = (fields: Partial<HookRunResult>): string =>
      hookRunRecord('beforeHelm', result(fields), { durationMs: 1, endedAt }).outcome;
    assert.equal(outcome({ ok: true }), 'ok');
    assert.equal(outcome({ exitCode: undefined, signal: 'SIGKILL', timedOut: true }), 'timed out');
    assert.equal(outcome({ exitCode: undefined, signal: 'SIGKILL' }), 'signal SIGKILL');
  });

  it("drops a removed module's hooks and hooks the modules tree no longer has", () => {
    const hook = (name: string): LoadedHook => ({ descriptor: { name } }) as unknown as LoadedHook;
    let loaded = {
      global: [hook('hooks/global.sh')],
      modules: new Map([
        ['web', [hook('hooks/a.sh')]],
        ['db', [hook('hooks/a.sh')]],
      ]),
    };
    const state = initialOperatorState();
    const ctx = { state, hooks: { loaded: () => loaded } } as unknown as OperatorContext;
    state.modules.discovered(['web', 'db'], []);
    state.hookRuns.add('web', 'hooks/a.sh', run('beforeHelm'));
    state.hookRuns.add('db', 'hooks/a.sh', run('beforeHelm'));
    state.hookRuns.add(undefined, 'hooks/global.sh', run('onStartup'));

    state.modules.discovered(['web'], []);
    state.modules.remove('db', 'deleted');
    dropRunsOfRemovedHooks(ctx);
    assert.equal(state.hookRuns.last('web', 'hooks/a.sh').length, 1);
    assert.deepEqual(state.hookRuns.last('db', 'hooks/a.sh'), []);
    assert.equal(state.hookRuns.last(undefined, 'hooks/global.sh').length, 1);

    loaded = { global: [], modules: new Map([['web', [hook('hooks/b.sh')]]]) };
    dropRunsOfRemovedHooks(ctx);
    assert.deepEqual(state.hookRuns.last('web', 'hooks/a.sh'), []);
    assert.deepEqual(state.hookRuns.last(undefined, 'hooks/global.sh'), []);
  });
});
