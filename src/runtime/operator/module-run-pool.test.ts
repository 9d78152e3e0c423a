import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadModulesTree } from '../../loader/modules-tree.ts';
import { makeTempTree } from '../../../test/temp-tree.ts';
import { ModuleRunPool } from './module-run-pool.ts';
import { runsToAwait } from './run-order.ts';

/** A run the test finishes by hand, logging its start and end. */
function gate(log: string[], name: string): { run: () => Promise<void>; finish: () => void } {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    run: () => {
      log.push(`start ${name}`);
      return done.then(() => {
        log.push(`end ${name}`);
      });
    },
    finish: () => {
      finish();
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ModuleRunPool', () => {
  it('runs independent modules at once, and a module after the runs it waits for and its own earlier run', async () => {
    const log: string[] = [];
    const pool = new ModuleRunPool(4, () => undefined);
    const [a, b, c, a2] = ['a', 'b', 'c', 'a again'].map((name) => gate(log, name));
    if (!a || !b || !c || !a2) throw new Error('gates');
    pool.start('a', a.run);
    pool.start('b', b.run);
    pool.start('c', c.run, ['a']);
    pool.start('a', a2.run);
    await tick();
    assert.deepEqual(log, ['start a', 'start b']);
    assert.deepEqual(
      pool.runs().map(({ module, startedAt, waitingFor }) => [module, startedAt !== undefined, waitingFor]),
      [
        ['b', true, undefined],
        ['c', false, ['a']],
        ['a', false, ['a']],
      ],
      'the runs in the pool in the order they entered it, a replaced run of a module gone from the list',
    );
    assert.equal(pool.isEarlier('b', 'c'), true);
    assert.equal(pool.isEarlier('c', 'b'), false);
    a.finish();
    await tick();
    assert.deepEqual(log.slice(2), ['end a', 'start c', 'start a again']);
    b.finish();
    c.finish();
    a2.finish();
    await pool.settle();
    assert.equal(pool.pending('a') || pool.pending('b') || pool.pending('c'), false);
  });

  it('has room for a new run only while fewer than `limit` are in the pool, and reports a run that throws', async () => {
    const failures: string[] = [];
    const pool = new ModuleRunPool(2, (module, error) => {
      failures.push(`${module}: ${error instanceof Error ? error.message : ''}`);
    });
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((name) => gate(log, name));
    if (!a || !b) throw new Error('gates');
    pool.start('a', a.run);
    pool.start('b', b.run);
    let roomy = false;
    void pool.room().then(() => {
      roomy = true;
    });
    await tick();
    assert.equal(roomy, false);
    b.finish();
    await tick();
    assert.equal(roomy, true);
    pool.start('c', () => Promise.reject(new Error('broken')));
    a.finish();
    await pool.settle();
    assert.deepEqual(failures, ['c: broken']);
  });
});

describe('runsToAwait', () => {
  it('waits for required modules, a Component module for those before it, a module for a Component behind it', () => {
    const temp = makeTempTree('run-order');
    try {
      const kustomization = (kind: string): string =>
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: ${kind}\n`;
      const modules = temp.write('modules', {
        '010-crds/kustomization.yaml': kustomization('Kustomization'),
        '020-app/kustomization.yaml': kustomization('Kustomization'),
        '030-uses-crds/kustomization.yaml': kustomization('Kustomization'),
        '030-uses-crds/module.yaml': 'requirements:\n  modules:\n    crds: "*"\n',
        '900-policy/kustomization.yaml': kustomization('Component'),
        '950-late/kustomization.yaml': kustomization('Kustomization'),
      });
      const tree = loadModulesTree([modules]);
      const all = (): boolean => true;
      assert.deepEqual(runsToAwait(tree, 'uses-crds', all), ['crds', 'policy']);
      assert.deepEqual(runsToAwait(tree, 'app', all), ['policy']);
      assert.deepEqual(runsToAwait(tree, 'policy', all), ['crds', 'app', 'uses-crds']);
      assert.deepEqual(runsToAwait(tree, 'late', all), []);
      assert.deepEqual(
        runsToAwait(tree, 'policy', (module) => module === 'app'),
        ['app'],
      );
    } finally {
      temp.remove();
    }
  });
});
