import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { makeTempTree } from '../../test/temp-tree.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { GLOBAL_OWNER, moduleOwner, type ConfigValues } from '../core/values.ts';
import { parseValuesPatch, ValuesPatchError, type ValuesPatch } from '../core/values-patch.ts';
import { ValuesSchemas, ValuesValidationError } from '../core/values-schema.ts';
import { loadModulesTree } from '../loader/modules-tree.ts';
import { loadTreeSchemas } from '../loader/values-schemas.ts';
import type { ConfigStore } from './config-store.ts';
import { FileConfigStore } from '../../test/file-config-store.ts';
import { ValuesStore } from './values-store.ts';

const tree = makeTempTree('values-store');
after(() => {
  tree.remove();
});

const patch = (text: string): ValuesPatch => parseValuesPatch(text, { hook: 'test-hook', kind: 'values' });
const some = moduleOwner('some-module');

interface Fixture {
  readonly store: ValuesStore;
  readonly configFile: string;
  readonly configText: () => string;
}

/** A modules tree (and global hooks dir) on disk, its config file, and a store over them. */
async function fixture(name: string, files: Record<string, string>, config = ''): Promise<Fixture> {
  const root = tree.write(name, { ...files, 'config.yaml': config });
  const modulesTree = loadModulesTree([path.join(root, 'modules')]);
  const configFile = path.join(root, 'config.yaml');
  const store = await ValuesStore.open({
    statics: modulesTree.statics,
    modules: modulesTree.modules.map((module) => module.name),
    schemas: loadTreeSchemas(modulesTree, path.join(root, 'global-hooks')),
    configStore: new FileConfigStore(configFile),
  });
  return { store, configFile, configText: () => readFileSync(configFile, 'utf8') };
}

/** Asserts that a rejected hook run left values, config views and the config file untouched. */
async function assertFailsAndKeepsState(
  f: Fixture,
  run: () => Promise<unknown>,
  expected: (error: unknown) => boolean,
): Promise<void> {
  const before = [
    f.store.valuesView(GLOBAL_OWNER),
    f.store.valuesView(some),
    f.store.configView(some),
    f.configText(),
  ];
  await assert.rejects(run(), expected);
  assert.deepEqual(
    [f.store.valuesView(GLOBAL_OWNER), f.store.valuesView(some), f.store.configView(some), f.configText()],
    before,
  );
}

// addon-operator's VALUES.md example: these files, this ConfigMap, these $CONFIG_VALUES_PATH and
// $VALUES_PATH.
const DOC_EXAMPLE_FILES = {
  'modules/values.yaml': 'global:\n  param1: 100\n  param2: "Yes"\n',
  'modules/01-some-module/values.yaml': 'someModule:\n  param1: "String"\n',
};
const DOC_EXAMPLE_CONFIG =
  'global: |\n  param1: 200\nsomeModule: |\n  param1: "Long string"\n  param2: "FOO"\n';

describe('values store: docs/values.md example', () => {
  it('generates the files of the example, applies the config patch to the ConfigMap, and regenerates them', async () => {
    const f = await fixture('documented-example', DOC_EXAMPLE_FILES, DOC_EXAMPLE_CONFIG);
    assert.deepEqual(f.store.configView(some), {
      global: { param1: 200 },
      someModule: { param1: 'Long string', param2: 'FOO' },
    });
    // addon-operator's documentation prints "YES" for the "Yes" of values.yaml, a typo: merging does not
    // change case.
    assert.deepEqual(f.store.valuesView(some), {
      global: { param1: 200, param2: 'Yes' },
      someModule: { param1: 'Long string', param2: 'FOO' },
    });

    const changes = await f.store.applyHookPatches(
      some,
      { configPatch: patch('  [{"op":"add", "path":"/someModule/param3", "value":"newValue"}]\n') },
      '001-some-module/hooks/hook.sh',
    );
    assert.deepEqual(changes, { global: false, modules: ['some-module'], enabled: [] });

    const data = parse(f.configText()) as Record<string, string>;
    assert.deepEqual(parse(data.global!), { param1: 200 });
    assert.deepEqual(parse(data.someModule!), { param1: 'Long string', param2: 'FOO', param3: 'newValue' });
    assert.deepEqual(f.store.configView(some), {
      global: { param1: 200 },
      someModule: { param1: 'Long string', param2: 'FOO', param3: 'newValue' },
    });
    assert.deepEqual(f.store.valuesView(some), {
      global: { param1: 200, param2: 'Yes' },
      someModule: { param1: 'Long string', param2: 'FOO', param3: 'newValue' },
    });
    // "replicas: {{ .Values.global.param1 }} would generate the string replicas: 200".
    assert.equal((f.store.helmValues('some-module').global as JsonObject).param1, 200);
  });
});

describe('values store: layers', () => {
  const files = {
    'modules/values.yaml': 'global:\n  fromRoot: root\n  overridden: root\nechoServer:\n  fromRoot: root\n',
    'modules/010-echo-server/values.yaml':
      'echoServer:\n  fromModule: module\n  replicas: 1\n  list: [a, b]\n',
    'modules/010-echo-server/openapi/config-values.yaml': `
type: object
properties:
  replicas: {type: integer, default: 5}
  resources: {type: object, default: {cpu: "1", memory: 1Gi}, properties: {cpu: {type: string}, memory: {type: string}}}
  list: {type: array, items: {type: string}}
  fromRoot: {type: string}
  fromModule: {type: string}
`,
    'modules/010-echo-server/openapi/values.yaml': `
x-extend: {schema: config-values.yaml}
type: object
properties:
  internal: {type: object, default: {}}
`,
  };
  const config = 'global: |\n  overridden: config\nechoServer: |\n  resources: {cpu: "2"}\n  list: [c]\n';
  const echo = moduleOwner('echo-server');

  it('says where each value came from: a values.yaml, a schema default, the ConfigMap or the hook that patched it', async () => {
    const f = await fixture('origins', files, config);
    await f.store.applyHookPatches(
      echo,
      { valuesPatch: patch('[{"op":"add","path":"/echoServer/internal/token","value":"t"}]') },
      'hooks/token.sh',
    );
    await f.store.applyHookPatches(
      echo,
      { valuesPatch: patch('[{"op":"add","path":"/echoServer/fromModule","value":"hook"}]') },
      'hooks/override.sh',
    );
    const origins = Object.fromEntries(
      f.store.valueOrigins(echo, '***').map((entry) => [entry.path, [entry.value, entry.origin]]),
    );
    assert.deepEqual(origins, {
      '/fromRoot': ['root', 'values.yaml of the tree'],
      '/fromModule': ['hook', "hook 'hooks/override.sh'"],
      '/replicas': [1, "the module's values.yaml"],
      '/list': [['c'], 'ConfigMap'],
      '/resources/cpu': ['2', 'ConfigMap'],
      '/resources/memory': ['1Gi', 'config schema default'],
      '/internal/token': ['t', "hook 'hooks/token.sh'"],
    });
    const global = Object.fromEntries(
      f.store.valueOrigins(GLOBAL_OWNER, '***').map((entry) => [entry.path, entry.origin]),
    );
    assert.deepEqual(global, { '/fromRoot': 'values.yaml of the tree', '/overridden': 'ConfigMap' });
  });

  it('merges static values, config schema defaults, config values, values schema defaults, then patches', async () => {
    const f = await fixture('layers', files, config);
    assert.deepEqual(f.store.globalValues(), { fromRoot: 'root', overridden: 'config' });
    assert.deepEqual(f.store.moduleValues('echo-server'), {
      fromRoot: 'root',
      fromModule: 'module',
      replicas: 1, // values.yaml beats the schema default
      resources: { cpu: '2', memory: '1Gi' }, // config merges into the defaulted map
      list: ['c'], // lists are replaced, not merged
      internal: {},
    });
    await f.store.applyHookPatches(
      echo,
      {
        valuesPatch: patch(
          '[{"op":"add","path":"/echoServer/internal/ready","value":true},{"op":"add","path":"/echoServer/replicas","value":3}]',
        ),
      },
      'h',
    );
    assert.deepEqual(f.store.moduleValues('echo-server'), {
      fromRoot: 'root',
      fromModule: 'module',
      replicas: 3,
      resources: { cpu: '2', memory: '1Gi' },
      list: ['c'],
      internal: { ready: true },
    });
  });

  it('gives each consumer its view', async () => {
    const f = await fixture('views', files, config);
    assert.deepEqual(Object.keys(f.store.valuesView(GLOBAL_OWNER)), ['global']);
    assert.deepEqual(f.store.configView(GLOBAL_OWNER), { global: { overridden: 'config' } });
    const hookView = f.store.valuesView(echo, ['echo-server', 'other']);
    assert.deepEqual(hookView.global, {
      fromRoot: 'root',
      overridden: 'config',
      enabledModules: ['echo-server', 'other'],
    });
    assert.deepEqual(Object.keys(hookView), ['global', 'echoServer']);
    assert.deepEqual(f.store.valuesView(echo, []).global, {
      fromRoot: 'root',
      overridden: 'config',
      enabledModules: [],
    });
    assert.deepEqual(f.store.configView(echo), {
      global: { overridden: 'config' },
      echoServer: { resources: { cpu: '2' }, list: ['c'] },
    });
    const helm = f.store.helmValues('echo-server');
    assert.equal((helm.global as JsonObject).enabledModules, undefined);
    (helm.global as JsonObject).fromRoot = 'changed by a caller';
    assert.equal(f.store.globalValues().fromRoot, 'root', 'views are copies');
  });
});

describe('values store: hook patches', () => {
  const files = {
    ...DOC_EXAMPLE_FILES,
    'modules/02-other/values.yaml': 'other:\n  x: 1\n',
    'modules/01-some-module/openapi/values.yaml':
      'type: object\nproperties:\n  param1: {type: string}\n  param2: {type: string}\n  param3: {type: string}\n  internal: {type: object}\n',
    'global-hooks/openapi/config-values.yaml':
      'type: object\nproperties:\n  param1: {type: integer}\n  param2: {type: string}\n  clusterHostname: {type: string}\n',
  };

  it('keeps a values patch in memory only', async () => {
    const f = await fixture('memory', files, DOC_EXAMPLE_CONFIG);
    const changes = await f.store.applyHookPatches(
      some,
      { valuesPatch: patch('{"op":"add","path":"/someModule/internal","value":{"a":1}}') },
      'h',
    );
    assert.deepEqual(changes, { global: false, modules: ['some-module'], enabled: [] });
    assert.deepEqual(f.store.moduleValues('some-module'), {
      param1: 'Long string',
      param2: 'FOO',
      internal: { a: 1 },
    });
    assert.equal(f.configText(), DOC_EXAMPLE_CONFIG);
    const reopened = await ValuesStore.open({
      statics: loadModulesTree([path.join(path.dirname(f.configFile), 'modules')]).statics,
      modules: ['some-module', 'other'],
      configStore: new FileConfigStore(f.configFile),
    });
    assert.deepEqual(reopened.moduleValues('some-module'), { param1: 'Long string', param2: 'FOO' });
  });

  it("drops a deleted module's values patches (ResetState); its config values stay", async () => {
    const f = await fixture('reset', files, DOC_EXAMPLE_CONFIG);
    await f.store.applyHookPatches(
      some,
      { valuesPatch: patch('{"op":"add","path":"/someModule/internal","value":{"a":1}}') },
      'h',
    );
    await f.store.resetModule('some-module');
    assert.deepEqual(f.store.moduleValues('some-module'), { param1: 'Long string', param2: 'FOO' });
    assert.deepEqual(f.store.patches(some), []);
    await f.store.resetModule('some-module');
    assert.deepEqual(f.store.moduleValues('some-module'), { param1: 'Long string', param2: 'FOO' });
  });

  it('replays restored patches over the values of now, and refuses ones outside the owner', async () => {
    const f = await fixture('restore', files, DOC_EXAMPLE_CONFIG);
    await f.store.restorePatches(
      some,
      patch(
        '[{"op":"add","path":"/someModule/internal","value":{"a":1}},{"op":"add","path":"/someModule/param2","value":"HOOK"}]',
      ),
    );
    // The hook's patch wins over the config value it overwrites; the other values are today's.
    assert.deepEqual(f.store.moduleValues('some-module'), {
      param1: 'Long string',
      param2: 'HOOK',
      internal: { a: 1 },
    });
    assert.equal(f.store.patches(some).length, 2);
    await assertFailsAndKeepsState(
      f,
      () => f.store.restorePatches(some, patch('{"op":"add","path":"/other/x","value":2}')),
      (error) => error instanceof ValuesPatchError && error.code === 'values-patch-out-of-scope',
    );
  });

  it('persists a config patch, applied before the values patch of the same run', async () => {
    const f = await fixture('config-and-values', files, DOC_EXAMPLE_CONFIG);
    await f.store.applyHookPatches(
      some,
      {
        configPatch: patch('[{"op":"add","path":"/someModule/param3","value":"saved"}]'),
        valuesPatch: patch('[{"op":"add","path":"/someModule/param3","value":"in memory"}]'),
      },
      'h',
    );
    assert.equal((f.store.moduleValues('some-module') as JsonObject).param3, 'in memory');
    assert.equal((f.store.configView(some).someModule as JsonObject).param3, 'saved');
    assert.deepEqual(parse((parse(f.configText()) as Record<string, string>).someModule!), {
      param1: 'Long string',
      param2: 'FOO',
      param3: 'saved',
    });
  });

  it('reports no change for a patch that changes nothing, and does not write the file', async () => {
    const f = await fixture('no-op', files, DOC_EXAMPLE_CONFIG);
    const changes = await f.store.applyHookPatches(
      some,
      { configPatch: patch('[{"op":"add","path":"/someModule/param2","value":"FOO"}]'), valuesPatch: [] },
      'h',
    );
    assert.deepEqual(changes, { global: false, modules: [], enabled: [] });
    assert.equal(f.configText(), DOC_EXAMPLE_CONFIG);
  });

  it("fails a hook run that touches another owner's values, and changes nothing", async () => {
    const f = await fixture('scope', files, DOC_EXAMPLE_CONFIG);
    const run = (
      owner = some,
      text = '[{"op":"add","path":"/someModule/param3","value":"ok"},{"op":"add","path":"/other/x","value":2}]',
    ) =>
      f.store.applyHookPatches(
        owner,
        {
          configPatch: patch('[{"op":"add","path":"/someModule/param3","value":"c"}]'),
          valuesPatch: patch(text),
        },
        'hooks/h.sh',
      );
    await assertFailsAndKeepsState(
      f,
      () => run(),
      (e) =>
        e instanceof ValuesPatchError &&
        e.code === 'values-patch-out-of-scope' &&
        /hook 'hooks\/h.sh'.*operation #2/.test(e.message),
    );
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          GLOBAL_OWNER,
          { valuesPatch: patch('[{"op":"add","path":"/someModule/x","value":1}]') },
          'g',
        ),
      (e) => e instanceof ValuesPatchError && e.code === 'values-patch-out-of-scope',
    );
  });

  it('fails a hook run whose patch does not apply, and changes nothing', async () => {
    const f = await fixture('no-apply', files, DOC_EXAMPLE_CONFIG);
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          some,
          {
            configPatch: patch('[{"op":"add","path":"/someModule/param3","value":"c"}]'),
            valuesPatch: patch(
              '[{"op":"add","path":"/someModule/param1","value":"x"},{"op":"remove","path":"/someModule/missing"}]',
            ),
          },
          'h',
        ),
      (e) => e instanceof ValuesPatchError && e.code === 'values-patch-failed',
    );
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          some,
          { configPatch: patch('[{"op":"remove","path":"/someModule/nope"}]') },
          'h',
        ),
      (e) => e instanceof ValuesPatchError && /config values patch/.test(e.message),
    );
  });

  // docs/values.md "Validation": a config patch that breaks the config values schema is a failed hook run.
  it('fails a hook run whose result breaks a schema, and changes nothing', async () => {
    const f = await fixture('schema', files, DOC_EXAMPLE_CONFIG);
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          GLOBAL_OWNER,
          { configPatch: patch('[{"op":"add", "path":"/global/clusterHostname", "value":{}}]') },
          'g',
        ),
      (e) =>
        e instanceof ValuesValidationError &&
        e.kind === 'config' &&
        /global\.clusterHostname must be string/.test(e.message),
    );
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          some,
          {
            configPatch: patch('[{"op":"add","path":"/someModule/param3","value":"c"}]'),
            valuesPatch: patch('[{"op":"add","path":"/someModule/param1","value":1}]'),
          },
          'h',
        ),
      (e) =>
        e instanceof ValuesValidationError &&
        e.kind === 'values' &&
        /someModule\.param1 must be string/.test(e.message),
    );
    await assertFailsAndKeepsState(
      f,
      () =>
        f.store.applyHookPatches(
          some,
          { valuesPatch: patch('[{"op":"add","path":"/someModule/unknown","value":1}]') },
          'h',
        ),
      (e) =>
        e instanceof ValuesValidationError && /must NOT have additional properties 'unknown'/.test(e.message),
    );
  });

  it('changes nothing when the config store fails to persist', async () => {
    const f = await fixture('persist-fails', files, DOC_EXAMPLE_CONFIG);
    const failing: ConfigStore = {
      load: () => new FileConfigStore(f.configFile).load(),
      saveSection: () => Promise.reject(new Error('apiserver unavailable')),
    };
    const modulesTree = loadModulesTree([path.join(path.dirname(f.configFile), 'modules')]);
    const store = await ValuesStore.open({
      statics: modulesTree.statics,
      modules: ['some-module', 'other'],
      configStore: failing,
    });
    const before = [store.valuesView(some), store.configView(some)];
    await assert.rejects(
      store.applyHookPatches(
        some,
        {
          configPatch: patch('[{"op":"add","path":"/someModule/p","value":1}]'),
          valuesPatch: patch('[{"op":"add","path":"/someModule/q","value":1}]'),
        },
        'h',
      ),
      /apiserver unavailable/,
    );
    assert.deepEqual([store.valuesView(some), store.configView(some)], before);
  });

  it('runs hook patches one at a time, losing none', async () => {
    const f = await fixture('serial', DOC_EXAMPLE_FILES, DOC_EXAMPLE_CONFIG);
    await Promise.all(
      ['a', 'b', 'c'].map((key) =>
        f.store.applyHookPatches(
          GLOBAL_OWNER,
          { configPatch: patch(`[{"op":"add","path":"/global/${key}","value":1}]`) },
          key,
        ),
      ),
    );
    assert.deepEqual(parse((parse(f.configText()) as Record<string, string>).global!), {
      param1: 200,
      a: 1,
      b: 1,
      c: 1,
    });
  });
});

describe('values store: enabled flags from global hooks', () => {
  const files = {
    'modules/values.yaml': 'someModuleEnabled: true\n',
    'modules/01-some-module/values.yaml': 'someModule: {}\n',
    'modules/02-other/values.yaml': 'other: {}\n',
  };

  it('sets and unsets a module enabled flag from memory and config patches, without writing it to config', async () => {
    const f = await fixture('dynamic', files, '');
    assert.deepEqual(
      [f.store.isEnabledByValues('some-module'), f.store.isEnabledByValues('other')],
      [true, false],
    );
    let changes = await f.store.applyHookPatches(
      GLOBAL_OWNER,
      {
        valuesPatch: patch('{"op":"add","path":"/someModuleEnabled","value":false}'),
        configPatch: patch('{"op":"add","path":"/otherEnabled","value":"true"}'),
      },
      'g',
    );
    assert.deepEqual(changes, { global: false, modules: [], enabled: ['some-module', 'other'] });
    assert.deepEqual(
      [f.store.isEnabledByValues('some-module'), f.store.isEnabledByValues('other')],
      [false, true],
    );
    assert.equal(f.configText(), '');
    changes = await f.store.applyHookPatches(
      GLOBAL_OWNER,
      { valuesPatch: patch('{"op":"remove","path":"/someModuleEnabled"}') },
      'g',
    );
    assert.deepEqual(changes.enabled, ['some-module']);
    assert.equal(f.store.isEnabledByValues('some-module'), true);
  });

  it('lets config values override a flag set by a hook, as the ConfigMap comes last', async () => {
    const f = await fixture('dynamic-vs-config', files, 'otherEnabled: "false"\n');
    const changes = await f.store.applyHookPatches(
      GLOBAL_OWNER,
      { valuesPatch: patch('{"op":"add","path":"/otherEnabled","value":true}') },
      'g',
    );
    assert.deepEqual(changes.enabled, []);
    assert.equal(f.store.isEnabledByValues('other'), false);
  });
});

describe('values store: config values', () => {
  // addon-operator's VALUES.md example under "Validation".
  const files = {
    'modules/values.yaml': 'moduleOneEnabled: true\n',
    'modules/module-one/values.yaml': 'moduleOne: {}\n',
    'modules/disabled/openapi/config-values.yaml':
      'type: object\nrequired: [x]\nproperties: {x: {type: string}}\n',
    'global-hooks/openapi/config-values.yaml': `
type: object
additionalProperties: false
required: [project, clusterName]
minProperties: 2
properties:
  project: {type: string}
  clusterName: {type: string}
  clusterHostname: {type: string}
  discovery: {type: object}
`,
    'global-hooks/openapi/values.yaml': `
x-extend: {schema: config-values.yaml}
type: object
x-required-for-helm: [discovery]
properties:
  discovery: {type: object, default: {}}
`,
  };
  const valid = 'global: |\n  project: p\n  clusterName: c\nmoduleOne: |\n  param1: value1\n';

  it('refuses to start with invalid config values', async () => {
    await assert.rejects(
      fixture('startup', files, 'global: |\n  project: myProject\nmoduleOne: |\n  param1: value1\n'),
      (e: unknown) =>
        e instanceof ValuesValidationError &&
        /global must have required property 'clusterName'/.test(e.message),
    );
  });

  it('applies defaults, lets hooks fill defaulted maps, and checks x-required-for-helm before Helm', async () => {
    const f = await fixture('defaults', files, valid);
    assert.deepEqual(f.store.globalValues(), { project: 'p', clusterName: 'c', discovery: {} });
    await f.store.applyHookPatches(
      GLOBAL_OWNER,
      { valuesPatch: patch('[{"op":"add","path":"/global/discovery/domain","value":"cluster.local"}]') },
      'g',
    );
    assert.deepEqual(f.store.globalValues().discovery, { domain: 'cluster.local' });
    f.store.helmValues('module-one');
    await f.store.applyHookPatches(
      GLOBAL_OWNER,
      { valuesPatch: patch('[{"op":"remove","path":"/global/discovery"}]') },
      'g',
    );
    assert.throws(() => f.store.helmValues('module-one'), /global must have required property 'discovery'/);
  });

  it('reloads config values, replays stored patches over them, and reports what changed', async () => {
    const f = await fixture('reload', files, valid);
    await f.store.applyHookPatches(
      moduleOwner('module-one'),
      {
        valuesPatch: patch(
          '[{"op":"remove","path":"/moduleOne/param1"},{"op":"add","path":"/moduleOne/b","value":1}]',
        ),
      },
      'h',
    );
    writeFileSync(
      f.configFile,
      'global: |\n  project: p\n  clusterName: c2\nmoduleOne: |\n  other: 2\nmoduleOneEnabled: "false"\n',
    );
    const changes = await f.store.reloadConfig();
    assert.deepEqual(changes, { global: true, modules: ['module-one'], enabled: ['module-one'] });
    assert.deepEqual(f.store.moduleValues('module-one'), { other: 2, b: 1 });
    assert.deepEqual(await f.store.reloadConfig(), { global: false, modules: [], enabled: [] });
  });

  it('keeps the old values when reloaded config values are invalid; a disabled module is not checked', async () => {
    const f = await fixture('reload-invalid', files, valid);
    const before: JsonValue = f.store.valuesView(GLOBAL_OWNER);
    writeFileSync(f.configFile, 'global: |\n  project: p\n  clusterName: 1\n');
    await assert.rejects(f.store.reloadConfig(), /global\.clusterName must be string/);
    assert.deepEqual(f.store.valuesView(GLOBAL_OWNER), before);
    writeFileSync(f.configFile, `${valid}disabled: |\n  y: 1\n`);
    await f.store.reloadConfig();
    assert.deepEqual(f.store.moduleValues('disabled'), { y: 1 });
  });
  it('checks an unchanged section again when its module turns enabled, and a refused one every time', async () => {
    const f = await fixture('reload-recheck', files, `${valid}disabled: |\n  y: 1\n`);
    // Its section breaks its schema, unchecked while the module is disabled.
    writeFileSync(f.configFile, `${valid}disabled: |\n  y: 1\ndisabledEnabled: "true"\n`);
    await assert.rejects(f.store.reloadConfig(), /must have required property 'x'/);
    await assert.rejects(f.store.reloadConfig(), /must have required property 'x'/);
    writeFileSync(f.configFile, `${valid}disabled: |\n  x: fixed\ndisabledEnabled: "true"\n`);
    assert.deepEqual(await f.store.reloadConfig(), { global: false, modules: ['disabled'], enabled: ['disabled'] });
  });
});

describe('values store: config store interface', () => {
  it('works over any ConfigStore', async () => {
    let saved: [string, JsonValue] | undefined;
    const memory: ConfigStore = {
      load: () => Promise.resolve<ConfigValues>({ global: { a: 1 }, modules: new Map(), enabled: new Map() }),
      saveSection: (key, section) => {
        saved = [key, section];
        return Promise.resolve();
      },
    };
    const store = await ValuesStore.open({
      statics: { root: {}, modules: new Map() },
      modules: [],
      schemas: { global: new ValuesSchemas(GLOBAL_OWNER), modules: new Map() },
      configStore: memory,
    });
    await store.applyHookPatches(
      GLOBAL_OWNER,
      { configPatch: patch('{"op":"add","path":"/global/b","value":2}') },
      'g',
    );
    assert.deepEqual(saved, ['global', { a: 1, b: 2 }]);
  });
});

describe('values store: a new modules tree (GitOps)', () => {
  const schema =
    'type: object\nproperties:\n  replicas: {type: integer}\n  replicasDefault: {type: integer, default: 1}\n';
  const before = {
    'modules/values.yaml': 'global: {}\n',
    'modules/010-kept/values.yaml': 'kept:\n  replicas: 1\n',
    'modules/020-removed/values.yaml': 'removed:\n  x: 1\n',
  };
  const modulesOf = (name: string, files: Record<string, string>) => {
    const next = loadModulesTree([path.join(tree.write(name, files), 'modules')]);
    return {
      statics: next.statics,
      modules: next.modules.map((module) => module.name),
      schemas: loadTreeSchemas(next, undefined),
    };
  };

  it('takes the new values files, modules and schemas, and keeps the patches of modules that remain', async () => {
    const f = await fixture('tree-before', before, 'kept: |\n  fromConfig: true\n');
    await f.store.applyHookPatches(
      moduleOwner('kept'),
      { valuesPatch: patch('{"op":"add","path":"/kept/fromHook","value":1}') },
      'h',
    );
    await f.store.replaceModules(
      modulesOf('tree-after', {
        'modules/values.yaml': 'global: {}\n',
        'modules/010-kept/values.yaml': 'kept:\n  replicas: 3\n',
        'modules/010-kept/openapi/values.yaml': schema,
        'modules/030-added/values.yaml': 'added:\n  y: 2\n',
      }),
    );
    assert.deepEqual(f.store.moduleValues('kept'), {
      replicas: 3,
      fromConfig: true,
      replicasDefault: 1,
      fromHook: 1,
    });
    assert.deepEqual(f.store.moduleValues('added'), { y: 2 });
    assert.throws(() => f.store.moduleValues('removed'), /not a module of this store/);
  });

  it('refuses a tree whose values break its schema, and changes nothing', async () => {
    const f = await fixture('tree-refused', before);
    const broken = modulesOf('tree-broken', {
      'modules/values.yaml': 'global: {}\nkeptEnabled: true\n',
      'modules/010-kept/values.yaml': 'kept:\n  replicas: many\n',
      'modules/010-kept/openapi/values.yaml': schema,
    });
    assert.throws(() => {
      f.store.checkModules(broken);
    }, ValuesValidationError);
    await assert.rejects(
      f.store.replaceModules(broken),
      /kept\.replicas must be integer|replicas must be integer/,
    );
    assert.deepEqual(f.store.moduleValues('kept'), { replicas: 1 });
    assert.deepEqual(f.store.moduleValues('removed'), { x: 1 });
  });
});
