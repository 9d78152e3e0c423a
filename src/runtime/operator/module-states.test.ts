import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { repoRoot } from '../../../test/repo-root.ts';
import { MODULE_TRANSITIONS, ModuleStateError, ModuleStates } from './module-states.ts';

/** The rows between the markers of docs/lifecycle.md "Module states": transition, from, to. */
function documentedTransitions(): Map<string, { from: string[]; to: string }> {
  const text = readFileSync(path.join(repoRoot, 'docs/lifecycle.md'), 'utf8');
  const start = text.indexOf('<!-- module-transitions:start -->');
  const end = text.indexOf('<!-- module-transitions:end -->');
  assert.ok(start >= 0 && end > start, 'docs/lifecycle.md has the module-transitions table');
  const rows = new Map<string, { from: string[]; to: string }>();
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(\w+)`$/u.exec(cells[1] ?? '')?.[1];
    if (name === undefined) continue;
    const phases = (cell: string): string[] => [...cell.matchAll(/`(\w+)`/gu)].map((match) => match[1] ?? '');
    const to = phases(cells[3] ?? '');
    rows.set(name, { from: phases(cells[2] ?? ''), to: to.length === 0 ? 'unchanged' : to.join(' or ') });
  }
  return rows;
}

describe('module states: the table', () => {
  it('is the one docs/lifecycle.md "Module states" shows, row for row', () => {
    const documented = documentedTransitions();
    assert.deepEqual(
      [...documented.keys()].sort(),
      Object.keys(MODULE_TRANSITIONS).sort(),
      'the same transitions',
    );
    for (const [name, rule] of Object.entries(MODULE_TRANSITIONS)) {
      const row = documented.get(name);
      assert.ok(row, `${name} documented`);
      assert.deepEqual(row.from.sort(), [...rule.from].sort(), `${name}: from`);
      assert.equal(row.to, rule.to, `${name}: to`);
    }
  });
});

describe('module states: transitions', () => {
  it('walks a module from enabled through a run and a background delivery to Delivered', () => {
    const states = new ModuleStates();
    states.discovered(['web'], []);
    assert.equal(states.get('web')?.phase, 'Pending');
    assert.equal(states.get('web')?.releaseAbsent, true);
    states.startRun('web');
    states.prepared('web');
    states.startDelivery('web', 'sum-1');
    states.finishRun('web');
    assert.equal(states.get('web')?.phase, 'Delivering');
    states.finishDelivery('web', { ids: ['demo/Deployment/web'], checksum: 'sum-1', helmRevision: 1 });
    assert.equal(states.get('web')?.phase, 'Delivered');
    assert.deepEqual(states.get('web')?.deliveredIds, ['demo/Deployment/web']);
  });

  it('refuses to start a run of a running or a disabled module: a bug, not a state', () => {
    const states = new ModuleStates();
    states.discovered(['web'], ['web']);
    states.startRun('web');
    assert.throws(() => { states.startRun('web'); }, ModuleStateError);
    states.discovered([], ['web']);
    assert.equal(states.get('web')?.phase, 'Disabled');
    assert.throws(() => { states.startRun('web'); }, /web: startRun from Disabled is not a transition/u);
  });

  it('keeps a failed delivery for the next run to await, with its checksum dropped', () => {
    const states = new ModuleStates();
    states.discovered(['web'], ['web']);
    states.startRun('web');
    states.startDelivery('web', 'sum-1');
    states.finishRun('web');
    states.failDelivery('web', 'helm upgrade: timed out');
    assert.deepEqual(
      { ...states.get('web'), name: undefined },
      {
        ...states.get('web'),
        name: undefined,
        phase: 'Failed',
        error: 'helm upgrade: timed out',
        deliveryFailed: true,
        checksum: undefined,
        delivering: false,
      },
    );
  });

  it('tells its listener (the status tracker) each transition, a purge excepted', () => {
    const heard: string[] = [];
    const states = new ModuleStates();
    states.listen({
      running: (module) => heard.push(`running ${module}`),
      succeeded: (module) => heard.push(`succeeded ${module}`),
      failed: (module, error) => heard.push(`failed ${module}: ${String(error)}`),
      waiting: (module, requirement) => heard.push(`waiting ${module} for ${requirement}`),
      delivered: (module, delivery) => heard.push(`delivered ${module} r${String(delivery.helmRevision)} ${String(delivery.objects)}`),
      disabled: (module) => heard.push(`disabled ${module}`),
    });
    states.discovered(['web', 'old'], ['web']);
    states.waitForRequirement('web', "module 'db'");
    states.startRun('web');
    states.failRun('web', new Error('beforeHelm failed'));
    states.startRun('web');
    states.finishDelivery('web', { ids: ['demo/Deployment/web', 'demo/Service/web'], checksum: 's', helmRevision: 3 });
    states.finishRun('web');
    states.discovered(['web'], ['web']);
    states.remove('old', 'deleted');
    states.remove('gone', 'purged');
    assert.deepEqual(heard, [
      "waiting web for module 'db'",
      'running web',
      'failed web: Error: beforeHelm failed',
      'running web',
      'delivered web r3 2',
      'succeeded web',
      'disabled old',
    ]);
    assert.equal(states.get('web')?.error, undefined);
  });

  it('says which requirement a module waits for, and forgets it once it runs', () => {
    const states = new ModuleStates();
    states.discovered(['app'], []);
    states.waitForRequirement('app', "module 'database'");
    assert.equal(states.get('app')?.phase, 'WaitingForRequirements');
    assert.equal(states.get('app')?.waitingFor, "module 'database'");
    states.startRun('app');
    assert.equal(states.get('app')?.waitingFor, undefined);
  });
});

type Step =
  | { readonly kind: 'discover'; readonly enabled: readonly string[]; readonly releases: readonly string[] }
  | { readonly kind: 'run'; readonly module: string; readonly outcome: 'ok' | 'background' | 'fail' | 'isolate' }
  | { readonly kind: 'deliveryEnds'; readonly module: string; readonly ok: boolean }
  | { readonly kind: 'requirement'; readonly module: string }
  | { readonly kind: 'missing'; readonly module: string }
  | { readonly kind: 'delete'; readonly module: string; readonly ok: boolean }
  | { readonly kind: 'purge'; readonly module: string }
  | { readonly kind: 'switchTree' };

const MODULES = ['a', 'b', 'c', 'd'];
const moduleName = fc.constantFrom(...MODULES);
const moduleSet = fc.subarray(MODULES);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('discover' as const), enabled: moduleSet, releases: moduleSet }),
  fc.record({
    kind: fc.constant('run' as const),
    module: moduleName,
    outcome: fc.constantFrom('ok' as const, 'background' as const, 'fail' as const, 'isolate' as const),
  }),
  fc.record({ kind: fc.constant('deliveryEnds' as const), module: moduleName, ok: fc.boolean() }),
  fc.record({ kind: fc.constant('requirement' as const), module: moduleName }),
  fc.record({ kind: fc.constant('missing' as const), module: moduleName }),
  fc.record({ kind: fc.constant('delete' as const), module: moduleName, ok: fc.boolean() }),
  fc.record({ kind: fc.constant('purge' as const), module: moduleName }),
  fc.record({ kind: fc.constant('switchTree' as const) }),
);

/**
 * Applies a step as the operator's handlers do, with their gates: a ModuleRun of a disabled module
 * returns at once, ModuleDelete only for a disabled one, a delivery ends only when one was left
 * running. Returns the modules removed by the step.
 */
function apply(states: ModuleStates, current: Step): string[] {
  switch (current.kind) {
    case 'discover':
      states.discovered(
        MODULES.filter((module) => current.enabled.includes(module)),
        current.releases,
      );
      return [];
    case 'run': {
      const { module } = current;
      if (!states.isEnabled(module)) return [];
      states.startRun(module);
      states.crdsWereApplied(module);
      states.startupRan(module);
      states.prepared(module);
      if (current.outcome === 'fail' || current.outcome === 'isolate') {
        states.failRun(module, 'hook failed');
        if (current.outcome === 'isolate') states.countIsolatedFailure(module);
        return [];
      }
      if (current.outcome === 'background') states.startDelivery(module, 'sum');
      else states.finishDelivery(module, { ids: [`ns/ConfigMap/${module}`], checksum: 'sum', helmRevision: 1 });
      states.finishRun(module);
      return [];
    }
    case 'deliveryEnds': {
      const { module } = current;
      if (states.get(module)?.delivering !== true) return [];
      if (current.ok) states.finishDelivery(module, { ids: [`ns/ConfigMap/${module}`], checksum: 'sum', helmRevision: 1 });
      else states.failDelivery(module, 'helm upgrade failed');
      return [];
    }
    case 'requirement':
      if (states.isEnabled(current.module)) states.waitForRequirement(current.module, "module 'x'");
      return [];
    case 'missing':
      if (states.isEnabled(current.module)) states.resourcesMissing(current.module);
      return [];
    case 'delete': {
      const { module } = current;
      if (states.isEnabled(module)) return [];
      if (!current.ok) {
        states.failDelete(module, 'helm uninstall failed');
        return [];
      }
      states.released(module);
      states.remove(module, 'deleted');
      return [module];
    }
    case 'purge':
      if (states.isEnabled(current.module)) return [];
      states.remove(current.module, 'purged');
      return [current.module];
    case 'switchTree':
      states.treeSwitched();
      return [];
  }
}

describe('module states: any sequence of events', () => {
  it('keeps its invariants: a removed module leaves no trace, a disabled one never runs, none runs twice', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const states = new ModuleStates();
        for (const current of steps) {
          const removed = apply(states, current);
          for (const module of removed) {
            assert.equal(states.get(module), undefined, `${module} removed: no record`);
            assert.equal(states.started().includes(module), false, `${module} removed: not started`);
            assert.equal(states.isEnabled(module), false, `${module} removed: not enabled`);
          }
          for (const record of states.all()) {
            const enabled = states.isEnabled(record.name);
            // Between steps nothing runs: every run of the driver has finished.
            assert.notEqual(record.phase, 'Running', `${record.name} left Running`);
            assert.equal(record.phase === 'Disabled', !enabled, `${record.name}: ${record.phase}, enabled ${enabled}`);
            if (!enabled) {
              assert.equal(record.prepared, false, `${record.name} disabled and prepared`);
              assert.throws(() => {
                states.startRun(record.name);
              }, ModuleStateError);
            }
            if (record.phase === 'Delivering') assert.equal(record.delivering, true);
            if (record.phase === 'WaitingForRequirements') assert.notEqual(record.waitingFor, undefined);
            else assert.equal(record.waitingFor, undefined);
            if (record.phase === 'Failed') assert.notEqual(record.error, undefined);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

