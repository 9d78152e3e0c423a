import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConditionTrue, JqExpressionError, loadJqEngine } from './jq-engine.ts';

describe('jq engine', () => {
  it('evaluates a condition over a values view', async () => {
    const jq = await loadJqEngine();
    const view = { global: { enabledModules: ['prometheus'] }, echoServer: { highAvailability: true } };
    assert.equal(isConditionTrue(jq.evaluate('.echoServer.highAvailability', view, 'test')), true);
    assert.equal(isConditionTrue(jq.evaluate('.echoServer.missing', view, 'test')), false);
    assert.equal(
      isConditionTrue(jq.evaluate('.global.enabledModules | index("prometheus")', view, 'test')),
      true,
    );
    assert.equal(isConditionTrue(jq.evaluate('empty', view, 'test')), false);
  });

  it('survives many calls on one instance (the pinned version does not abort)', async () => {
    const jq = await loadJqEngine();
    for (let i = 0; i < 600; i++) assert.deepEqual(jq.evaluate('.x + 1', { x: i }, 'test'), [i + 1]);
  });

  it('names the place and the expression when a filter does not compile', async () => {
    const jq = await loadJqEngine();
    assert.throws(
      () => jq.evaluate('.a[', {}, 'modules/010-app/kustomization.yaml'),
      (error: unknown) =>
        error instanceof JqExpressionError &&
        /modules\/010-app\/kustomization\.yaml: jq expression '\.a\['/.test(error.message),
    );
  });
});

describe('jq engine plain paths', () => {
  it('answers plain paths exactly as jq does', async () => {
    const jq = await loadJqEngine();
    const input = { a: { b: { c: 1 }, list: [1], n: null, s: 'x' } };
    for (const filter of ['.', '.a', '.a.b.c', '.a.missing', '.a.n.deeper', ' .a.b ']) {
      const expected = jq.evaluate(`${filter} | .`, input, 'test');
      assert.deepEqual(jq.evaluate(filter, input, 'test'), expected, filter);
    }
  });

  it('leaves paths through lists and scalars to jq, which reports them', async () => {
    const jq = await loadJqEngine();
    assert.throws(() => jq.evaluate('.a.s.x', { a: { s: 'x' } }, 'test'), JqExpressionError);
    assert.throws(() => jq.evaluate('.a.x', { a: [1] }, 'test'), JqExpressionError);
  });
});

describe('jq engine budget', () => {
  it('stops a filter that never ends within its budget, names it, and answers the next call', async () => {
    const jq = await loadJqEngine({ timeoutMs: 300 });
    assert.throws(
      () => jq.evaluate('def f: f; f', {}, 'modules/010-app/kustomization.yaml'),
      (error: unknown) =>
        error instanceof JqExpressionError &&
        /modules\/010-app\/kustomization\.yaml: jq expression 'def f: f; f' failed: did not finish within 0\.3 s\./.test(
          error.message,
        ) &&
        /KADDON_JQ_TIMEOUT/.test(error.hint),
    );
    assert.deepEqual(jq.evaluate('[.a, .b] | add', { a: 1, b: 2 }, 'test'), [3]);
  });
});
