import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GLOBAL_OWNER, moduleOwner } from './values.ts';
import { applyValuesPatch, compactValuesPatch } from './values-patch-apply.ts';
import {
  parseValuesPatch,
  scopeValuesPatch,
  ValuesPatchError,
  type PatchSource,
  type ValuesPatch,
} from './values-patch.ts';

const source: PatchSource = { hook: 'hooks/discover.sh', kind: 'values' };
const parse = (text: string): ValuesPatch => parseValuesPatch(text, source);

function rejects(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ValuesPatchError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

describe('values patch files', () => {
  const add = { op: 'add', path: '/global/a', value: 1 };
  const remove = { op: 'remove', path: '/global/b' };

  it('reads every layout addon-operator reads: a list, lists or objects one after another, mixed', () => {
    assert.deepEqual(parse('[{"op":"add","path":"/global/a","value":1}]'), [add]);
    assert.deepEqual(
      parse('[{"op":"add","path":"/global/a","value":1}]\n[{"op":"remove","path":"/global/b"}]\n'),
      [add, remove],
    );
    assert.deepEqual(parse('{"op":"add","path":"/global/a","value":1}\n{"op":"remove","path":"/global/b"}'), [
      add,
      remove,
    ]);
    assert.deepEqual(parse('{"op":"add","path":"/global/a","value":1}{"op":"remove","path":"/global/b"}'), [
      add,
      remove,
    ]);
    assert.deepEqual(
      parse('  [{"op":"add","path":"/global/a","value":1}]{"op":"remove","path":"/global/b"}[]'),
      [add, remove],
    );
    assert.deepEqual(parse('[{"op":"add","path":"/global/s","value":"a ] } \\" ["}]'), [
      { op: 'add', path: '/global/s', value: 'a ] } " [' },
    ]);
  });

  it('reads an empty file, blank lines, [] and null as no operations', () => {
    assert.deepEqual(parse(''), []);
    assert.deepEqual(parse('\n  \n'), []);
    assert.deepEqual(parse('[]\nnull\n'), []);
  });

  it('keeps value null, and from for move and copy', () => {
    assert.deepEqual(parse('{"op":"add","path":"/global/a","value":null}'), [
      { op: 'add', path: '/global/a', value: null },
    ]);
    assert.deepEqual(parse('{"op":"move","from":"/global/a","path":"/global/b"}'), [
      { op: 'move', from: '/global/a', path: '/global/b' },
    ]);
  });

  it('fails on text that is not JSON, naming the hook, the file and the line', () => {
    rejects(
      () => parse('[{"op":"add","path":"/global/a","value":1}]\n{"op": add}'),
      'values-patch-invalid',
      /^hook 'hooks\/discover.sh': values patch \(\$VALUES_JSON_PATCH_PATH\): JSON document 2 \(line 2\) does not parse/,
    );
    rejects(() => parse('[{"op":"add"'), 'values-patch-invalid', /JSON document 1 \(line 1\) does not parse/);
    rejects(
      () => parse('[{"op":"remove","path":"/global/a"}],[]'),
      'values-patch-invalid',
      /JSON document 2/,
    );
  });

  it('checks each operation: op, path, value, from', () => {
    rejects(
      () => parse('[{"op":"replace","path":"/global/a","value":1}]'),
      'values-patch-invalid',
      /operation #1 .*unsupported patch operation 'replace'/,
    );
    rejects(
      () => parse('[{"op":"merge","path":"/global/a"}]'),
      'values-patch-invalid',
      /'op' must be one of add, remove, move, copy, test/,
    );
    rejects(
      () => parse('[{"op":"add","path":"global/a","value":1}]'),
      'values-patch-invalid',
      /'path' must be a JSON pointer/,
    );
    rejects(
      () => parse('[{"op":"add","path":"/global/a~2","value":1}]'),
      'values-patch-invalid',
      /'path' must be a JSON pointer/,
    );
    rejects(
      () => parse('[{"op":"remove","path":"/global/a"},{"op":"add","path":"/global/a"}]'),
      'values-patch-invalid',
      /operation #2 .*needs a 'value'/,
    );
    rejects(() => parse('[{"op":"copy","path":"/global/a"}]'), 'values-patch-invalid', /needs 'from'/);
    rejects(() => parse('["add"]'), 'values-patch-invalid', /an operation must be an object/);
  });
});

describe('patch scope', () => {
  const module = moduleOwner('echo-server');

  it('lets a module hook change only its own section', () => {
    const patch = parse(
      '[{"op":"add","path":"/echoServer/replicas","value":2},{"op":"remove","path":"/echoServer/x"}]',
    );
    assert.deepEqual(scopeValuesPatch(patch, module, source).values, patch);
    for (const path of ['/global/a', '/otherModule/a', '/echoServerEnabled', '/echo-server/a', '']) {
      rejects(
        () => scopeValuesPatch([{ op: 'add', path, value: 1 }], module, source),
        'values-patch-out-of-scope',
        /the path is outside this hook's values \(only \/echoServer\/…\)/,
      );
    }
    rejects(
      () => scopeValuesPatch([{ op: 'copy', from: '/global/a', path: '/echoServer/a' }], module, source),
      'values-patch-out-of-scope',
      /'from' is outside/,
    );
  });

  it('lets a global hook change /global and set or unset module enabled flags', () => {
    const patch = parse(`
      {"op":"add","path":"/global/discovery","value":{}}
      {"op":"add","path":"/echoServerEnabled","value":false}
      {"op":"add","path":"/certManagerEnabled","value":"True"}
      {"op":"remove","path":"/l2LoadBalancerEnabled"}`);
    assert.deepEqual(scopeValuesPatch(patch, GLOBAL_OWNER, source), {
      values: [{ op: 'add', path: '/global/discovery', value: {} }],
      enabled: [
        { moduleKey: 'echoServer', enabled: false },
        { moduleKey: 'certManager', enabled: true },
        { moduleKey: 'l2LoadBalancer', enabled: undefined },
      ],
    });
    rejects(
      () => scopeValuesPatch([{ op: 'add', path: '/echoServer/a', value: 1 }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /only \/global\/… and \/<module>Enabled/,
    );
    rejects(
      () => scopeValuesPatch([{ op: 'add', path: '/echoServerEnabled', value: 'yes' }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /must be true or false/,
    );
    rejects(
      () =>
        scopeValuesPatch([{ op: 'add', path: '/echoServerEnabled/x', value: true }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /enabled flag is set with add/,
    );
    rejects(
      () => scopeValuesPatch([{ op: 'add', path: '/Echo_serverEnabled', value: true }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /outside/,
    );
  });

  it('lets a hook replace its whole section with a map but not remove it', () => {
    assert.equal(
      scopeValuesPatch([{ op: 'add', path: '/global', value: { a: 1 } }], GLOBAL_OWNER, source).values.length,
      1,
    );
    rejects(
      () => scopeValuesPatch([{ op: 'remove', path: '/global' }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /whole 'global' section/,
    );
    rejects(
      () => scopeValuesPatch([{ op: 'add', path: '/global', value: 'x' }], GLOBAL_OWNER, source),
      'values-patch-out-of-scope',
      /whole 'global' section/,
    );
  });
});

describe('applying a patch', () => {
  const doc = { echoServer: { replicas: 1, hosts: ['a'], tls: { enabled: true } } };

  it('applies operations in order to a copy', () => {
    const patch = parse(`[
      {"op":"add","path":"/echoServer/replicas","value":3},
      {"op":"add","path":"/echoServer/hosts/-","value":"b"},
      {"op":"remove","path":"/echoServer/tls/enabled"},
      {"op":"copy","from":"/echoServer/hosts","path":"/echoServer/allHosts"},
      {"op":"test","path":"/echoServer/replicas","value":3}]`);
    const result = applyValuesPatch(doc, patch, { source });
    assert.deepEqual(result, {
      echoServer: { replicas: 3, hosts: ['a', 'b'], tls: {}, allHosts: ['a', 'b'] },
    });
    assert.deepEqual(doc, { echoServer: { replicas: 1, hosts: ['a'], tls: { enabled: true } } });
  });

  it('fails as a whole on any failing operation, naming the hook and the operation', () => {
    const cases: [string, RegExp][] = [
      [
        '{"op":"add","path":"/echoServer/a/b","value":1}',
        /operation #2 \{"op":"add","path":"\/echoServer\/a\/b","value":1\} does not apply: the parent of the path does not exist/,
      ],
      [
        '{"op":"remove","path":"/echoServer/missing"}',
        /operation #2 .* does not apply: the path does not exist/,
      ],
      ['{"op":"test","path":"/echoServer/replicas","value":5}', /differs from the tested value/],
      ['{"op":"move","from":"/echoServer/nope","path":"/echoServer/x"}', /the 'from' path does not exist/],
      ['{"op":"add","path":"/echoServer/hosts/7","value":1}', /out of bounds/],
    ];
    for (const [second, message] of cases) {
      const patch = parse(`{"op":"add","path":"/echoServer/replicas","value":9}\n${second}`);
      rejects(() => applyValuesPatch(doc, patch, { source }), 'values-patch-failed', message);
    }
    assert.deepEqual(doc.echoServer.replicas, 1);
  });

  it('skips removes of missing paths when replaying stored patches', () => {
    const patch = parse(
      '[{"op":"remove","path":"/echoServer/missing"},{"op":"add","path":"/echoServer/a","value":1}]',
    );
    assert.deepEqual(applyValuesPatch(doc, patch, { source, ignoreMissingRemoves: true }).echoServer, {
      ...doc.echoServer,
      a: 1,
    });
  });

  it('refuses to touch __proto__', () => {
    rejects(
      () => applyValuesPatch(doc, [{ op: 'add', path: '/echoServer/__proto__/x', value: 1 }], { source }),
      'values-patch-failed',
      /__proto__/,
    );
  });
});

describe('stored patch compaction', () => {
  const ops = (text: string): ValuesPatch => parse(text);

  it('keeps the last add or remove at a path and drops what it overwrites', () => {
    const stored = ops(
      '[{"op":"add","path":"/m/a","value":{"b":1}},{"op":"add","path":"/m/a/c","value":2},{"op":"add","path":"/m/ab","value":3}]',
    );
    assert.deepEqual(compactValuesPatch(stored, ops('[{"op":"add","path":"/m/a","value":{}}]')), [
      { op: 'add', path: '/m/ab', value: 3 },
      { op: 'add', path: '/m/a', value: {} },
    ]);
    assert.deepEqual(compactValuesPatch(stored, ops('[{"op":"remove","path":"/m/a/c"}]')), [
      ...stored.slice(0, 1),
      stored[2],
      { op: 'remove', path: '/m/a/c' },
    ]);
  });

  it('keeps list operations and anything before a move or copy, and drops tests', () => {
    const appends = ops('[{"op":"add","path":"/m/l/-","value":1}]');
    assert.equal(compactValuesPatch(appends, appends).length, 2);
    const stored = ops(
      '[{"op":"add","path":"/m/a/x","value":1},{"op":"copy","from":"/m/a/x","path":"/m/y"}]',
    );
    assert.equal(compactValuesPatch(stored, ops('[{"op":"add","path":"/m/a","value":{}}]')).length, 3);
    assert.deepEqual(compactValuesPatch([], ops('[{"op":"test","path":"/m/a","value":1}]')), []);
  });

  it('replays to the same values as the full history', () => {
    const base = { m: { l: [0], keep: 1 } };
    const runs = [
      '[{"op":"add","path":"/m/a","value":{"x":1}},{"op":"add","path":"/m/l/-","value":1}]',
      '[{"op":"add","path":"/m/a/y","value":2},{"op":"move","from":"/m/a/x","path":"/m/moved"}]',
      '[{"op":"add","path":"/m/a","value":{"z":3}},{"op":"remove","path":"/m/keep"},{"op":"add","path":"/m/l/0","value":-1}]',
      '[{"op":"add","path":"/m/a/z","value":4},{"op":"add","path":"/m/keep","value":5}]',
    ].map(ops);
    let stored: ValuesPatch = [];
    let live = base as Record<string, unknown>;
    for (const run of runs) {
      live = applyValuesPatch(live as never, run, { source });
      stored = compactValuesPatch(stored, run);
    }
    assert.deepEqual(applyValuesPatch(base, stored, { source, ignoreMissingRemoves: true }), live);
    assert.ok(stored.length < runs.flat().length);
  });
});
