import assert from 'node:assert/strict';
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../run-cli.ts';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';

const tmp = makeTempTree('run-hooks');
after(() => {
  tmp.remove();
});

/** Writes files and makes the ones under hooks/ and named `enabled` executable. */
function tree(name: string, files: Record<string, string>): string {
  const dir = tmp.write(name, files);
  for (const file of Object.keys(files)) {
    if (file.includes('hooks/') || file.endsWith('/enabled')) chmodSync(path.join(dir, file), 0o755);
  }
  return dir;
}

/** A bash hook printing `config` for --config, else running `body`. */
function bashHook(config: object, body: string): string {
  return `#!/usr/bin/env bash\nset -euo pipefail\nif [ "\${1:-}" = "--config" ]; then echo '${JSON.stringify(config)}'; exit 0; fi\n${body}\n`;
}

const configMap = (name: string, data: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${data}`;

describe('kaddon build --run-hooks', () => {
  it('renders the example module whose hook computes a value used by $(var) and a component condition', async () => {
    const modules = path.join(repoRoot, 'examples/platform/modules');
    const plain = await runCli(['build', modules, '--module', 'greeter']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /replicas: 1\n/);
    assert.doesNotMatch(plain.stdout, /PodDisruptionBudget/);
    const hooked = await runCli(['build', modules, '--module', 'greeter', '--run-hooks']);
    assert.equal(hooked.code, 0, hooked.stderr);
    assert.match(hooked.stdout, /replicas: 3\n/);
    assert.match(hooked.stdout, /kind: PodDisruptionBudget/);
  });

  // addon-operator's VALUES.md example: the values files a module hook receives.
  it('gives hooks values and config values (docs/values.md), global.enabledModules to module hooks', async () => {
    const out = tmp.write('dumps', {});
    const dir = tree('seed003', {
      'modules/values.yaml': 'global:\n  param1: 100\n  param2: "Yes"\nsomeModuleEnabled: true\n',
      'modules/01-some-module/values.yaml': 'someModule:\n  param1: "String"\n',
      'modules/01-some-module/hooks/dump.sh': bashHook(
        { configVersion: 'v1', beforeHelm: 1 },
        `cp "$VALUES_PATH" ${out}/values.json; cp "$CONFIG_VALUES_PATH" ${out}/config.json; cp "$BINDING_CONTEXT_PATH" ${out}/context.json`,
      ),
      'config.yaml': 'global: |\n  param1: 200\nsomeModule: |\n  param1: "Long string"\n  param2: "FOO"\n',
    });
    const run = await runCli([
      'build',
      path.join(dir, 'modules'),
      '--run-hooks',
      '--config-values',
      path.join(dir, 'config.yaml'),
    ]);
    assert.equal(run.code, 0, run.stderr);
    const read = (file: string): unknown => JSON.parse(readFileSync(path.join(out, file), 'utf8'));
    assert.deepEqual(read('config.json'), {
      global: { param1: 200 },
      someModule: { param1: 'Long string', param2: 'FOO' },
    });
    assert.deepEqual(read('values.json'), {
      global: { param1: 200, param2: 'Yes', enabledModules: ['some-module'] },
      someModule: { param1: 'Long string', param2: 'FOO' },
    });
    assert.deepEqual(read('context.json'), [{ binding: 'beforeHelm', snapshots: {} }]);
  });

  it('runs global onStartup then beforeAll hooks by ORDER, and their patches reach the render', async () => {
    const dir = tree('global', {
      'global-hooks/hooks/b.sh': bashHook(
        { configVersion: 'v1', onStartup: 20 },
        `echo '[{"op":"add","path":"/global/trail","value":"'"$(cat "$VALUES_PATH" | tr -d ' \\n' | sed 's/.*"trail":"\\([^"]*\\)".*/\\1/')"'+b"}]' > "$VALUES_JSON_PATCH_PATH"`,
      ),
      'global-hooks/hooks/a.sh': bashHook(
        { configVersion: 'v1', onStartup: 10, beforeAll: 5 },
        `if grep -q beforeAll "$BINDING_CONTEXT_PATH"; then echo '[{"op":"add","path":"/global/phase","value":"beforeAll"}]' > "$VALUES_JSON_PATCH_PATH"; else echo '[{"op":"add","path":"/global/trail","value":"a"}]' > "$VALUES_JSON_PATCH_PATH"; fi`,
      ),
      'modules/values.yaml': 'appEnabled: true\n',
      'modules/010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
      'modules/010-app/cm.yaml': configMap('cm', '  trail: $(global.trail)\n  phase: $(global.phase)\n'),
    });
    const run = await runCli([
      'build',
      path.join(dir, 'modules'),
      '--run-hooks',
      '--global-hooks-dir',
      path.join(dir, 'global-hooks'),
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /phase: beforeAll\n/);
    assert.match(run.stdout, /trail: a\+b\n/);
  });

  it('lets an enabled script disable a module; it sees the modules enabled before it', async () => {
    const out = tmp.write('enabled-dump', {});
    const dir = tree('enabled', {
      'values.yaml': 'firstEnabled: true\nsecondEnabled: true\n',
      '010-first/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '010-first/cm.yaml': configMap('first', '  a: b\n'),
      '020-second/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '020-second/cm.yaml': configMap('second', '  a: b\n'),
      '020-second/enabled': `#!/usr/bin/env bash\ncp "$VALUES_PATH" ${out}/values.json\necho false > "$MODULE_ENABLED_RESULT"\n`,
    });
    const run = await runCli(['build', dir, '--run-hooks']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /# module: first/);
    assert.doesNotMatch(run.stdout, /# module: second/);
    const values = JSON.parse(readFileSync(path.join(out, 'values.json'), 'utf8')) as {
      global: { enabledModules: string[] };
    };
    assert.deepEqual(values.global.enabledModules, ['first']);
  });

  it('passes the objects of --snapshots through the binding jqFilter into lifecycle snapshots', async () => {
    const out = tmp.write('snap-dump', {});
    const dir = tree('snapshots', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '010-app/cm.yaml': configMap('cm', '  a: b\n'),
      '010-app/hooks/nodes.sh': bashHook(
        {
          configVersion: 'v1',
          beforeHelm: 1,
          kubernetes: [
            {
              name: 'nodes',
              apiVersion: 'v1',
              kind: 'Node',
              jqFilter: '.metadata.name',
              executeHookOnEvent: [],
            },
          ],
        },
        `cp "$BINDING_CONTEXT_PATH" ${out}/context.json`,
      ),
      'snapshots.yaml':
        'hooks/nodes.sh:\n  nodes:\n  - {apiVersion: v1, kind: Node, metadata: {name: node-1}}\n',
    });
    const run = await runCli(['build', dir, '--run-hooks', '--snapshots', path.join(dir, 'snapshots.yaml')]);
    assert.equal(run.code, 0, run.stderr);
    const context = JSON.parse(readFileSync(path.join(out, 'context.json'), 'utf8')) as [
      { snapshots: { nodes: { filterResult: string }[] } },
    ];
    assert.equal(context[0].snapshots.nodes[0]?.filterResult, 'node-1');
  });
});

describe('kaddon build --run-hooks with misbehaving hooks', () => {
  const app = (hook: string): Record<string, string> => ({
    'values.yaml': 'appEnabled: true\nother: {}\n',
    '010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
    '010-app/cm.yaml': configMap('cm', '  a: b\n'),
    '010-app/hooks/h.sh': hook,
  });

  it('fails naming the hook when it exits non-zero', async () => {
    const dir = tree(
      'exit',
      app(bashHook({ configVersion: 'v1', beforeHelm: 1 }, 'echo broken >&2; exit 3')),
    );
    const run = await runCli(['build', dir, '--run-hooks']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /hook 'hooks\/h\.sh': the beforeHelm run failed: .*exited with code 3/);
  });

  it('refuses a patch to another module’s values', async () => {
    const dir = tree(
      'scope',
      app(
        bashHook(
          { configVersion: 'v1', beforeHelm: 1 },
          `echo '[{"op":"add","path":"/other/x","value":1}]' > "$VALUES_JSON_PATCH_PATH"`,
        ),
      ),
    );
    const run = await runCli(['build', dir, '--run-hooks']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /hook 'hooks\/h\.sh'.*\/other\/x/);
  });

  it('refuses a bad values patch file', async () => {
    const dir = tree(
      'badjson',
      app(bashHook({ configVersion: 'v1', beforeHelm: 1 }, `echo '[{"op":' > "$VALUES_JSON_PATCH_PATH"`)),
    );
    const run = await runCli(['build', dir, '--run-hooks']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /hook 'hooks\/h\.sh'.*VALUES_JSON_PATCH_PATH/);
  });

  it('stops a hook that hangs when --hook-timeout runs out', async () => {
    const dir = tree('hang', app(bashHook({ configVersion: 'v1', beforeHelm: 1 }, 'sleep 600')));
    const run = await runCli(['build', dir, '--run-hooks', '--hook-timeout', '1']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /hook 'hooks\/h\.sh'.*(timed out|timeout)/i);
  });

  it('names the field of an invalid --config output', async () => {
    const dir = tree(
      'badconfig',
      app(
        bashHook(
          { configVersion: 'v1', kubernetes: [{ kind: 'Pod', executeHookOnEvent: ['Updated'] }] },
          'true',
        ),
      ),
    );
    const run = await runCli(['build', dir, '--run-hooks']);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /kubernetes\[0\]\.executeHookOnEvent\[0\]: 'Updated' is not one of Added, Modified, Deleted/,
    );
  });
});
