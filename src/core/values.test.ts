import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  configSection,
  describeOwner,
  GLOBAL_OWNER,
  globalValues,
  isEnabledByValues,
  mergeValues,
  moduleOwner,
  moduleValues,
  ownerValuesKey,
  parseConfigValues,
  valueAtPath,
  ValuesError,
  withConfigSection,
  type StaticValues,
} from './values.ts';

describe('values layers', () => {
  it('merges maps deeply and replaces lists and scalars', () => {
    assert.deepEqual(mergeValues({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: null }), {
      a: { b: 1, c: [3] },
      d: null,
    });
  });

  // addon-operator's VALUES.md example: values.yaml files, then the ConfigMap.
  it('produces the merged values of the docs/values.md example', () => {
    const statics: StaticValues = {
      root: { global: { param1: 100, param2: 'Yes' } },
      modules: new Map([['some-module', { someModule: { param1: 'String' } }]]),
    };
    const config = parseConfigValues(
      { global: 'param1: 200\n', someModule: 'param1: "Long string"\nparam2: "FOO"\n' },
      'configmap',
    );
    assert.deepEqual(globalValues(statics, config), { param1: 200, param2: 'Yes' });
    assert.deepEqual(moduleValues('some-module', statics, config), { param1: 'Long string', param2: 'FOO' });
  });

  // docs/values.md "Layers": keys in values.yaml files, then the ConfigMap.
  it('merges enabled flags: root values.yaml, module values.yaml, then config values', () => {
    const statics: StaticValues = {
      root: { nginxIngressEnabled: true, someModuleEnabled: false },
      modules: new Map([['nginx-ingress', { nginxIngressEnabled: false }]]),
    };
    const empty = parseConfigValues({}, 'cm');
    assert.equal(isEnabledByValues('nginx-ingress', statics, empty), false);
    assert.equal(
      isEnabledByValues('some-module', statics, parseConfigValues({ someModuleEnabled: 'true' }, 'cm')),
      true,
    );
    assert.equal(isEnabledByValues('unmentioned', statics, empty), false);
  });

  it('refuses config values that break the ConfigMap contract, naming the key', () => {
    assert.throws(
      () => parseConfigValues({ some_module: 'a: 1' }, 'cm.yaml'),
      /bad module name 'some_module'/,
    );
    assert.throws(() => parseConfigValues({ someModuleEnabled: 'yes' }, 'cm.yaml'), ValuesError);
    assert.throws(
      () => parseConfigValues({ someModule: '"just a string"' }, 'cm.yaml'),
      /must be a map or a list/,
    );
  });

  it('reads dotted paths, list indexes included', () => {
    const view = { global: { discovery: { clusterDomain: 'cluster.local' } }, app: { hosts: ['a', 'b'] } };
    assert.equal(valueAtPath(view, 'global.discovery.clusterDomain'), 'cluster.local');
    assert.equal(valueAtPath(view, 'app.hosts.1'), 'b');
    assert.equal(valueAtPath(view, 'app.missing'), undefined);
  });

  // docs/values.md "Layers": Static, then DynamicallyEnabled (global hooks' patches), then KubeConfig.
  it('puts flags set by global hooks between the values.yaml files and config values', () => {
    const statics: StaticValues = { root: { echoServerEnabled: true }, modules: new Map() };
    const dynamic = new Map([['echoServer', false]]);
    assert.equal(isEnabledByValues('echo-server', statics, parseConfigValues({}, 'cm'), dynamic), false);
    const config = parseConfigValues({ echoServerEnabled: 'true' }, 'cm');
    assert.equal(isEnabledByValues('echo-server', statics, config, dynamic), true);
    assert.equal(isEnabledByValues('echo-server', statics, parseConfigValues({}, 'cm'), new Map()), true);
  });

  it('names owners and reads and replaces their config sections', () => {
    const echo = moduleOwner('echo-server');
    assert.deepEqual([ownerValuesKey(GLOBAL_OWNER), ownerValuesKey(echo)], ['global', 'echoServer']);
    assert.deepEqual([describeOwner(GLOBAL_OWNER), describeOwner(echo)], ['global', "module 'echo-server'"]);
    const config = parseConfigValues({ global: 'a: 1', echoServer: 'b: 2' }, 'cm');
    assert.deepEqual(configSection(config, echo), { b: 2 });
    assert.deepEqual(configSection(parseConfigValues({}, 'cm'), echo), {});
    const replaced = withConfigSection(withConfigSection(config, echo, { b: 3 }), GLOBAL_OWNER, { a: 2 });
    assert.deepEqual([replaced.global, replaced.modules.get('echoServer')], [{ a: 2 }, { b: 3 }]);
    assert.deepEqual(config.modules.get('echoServer'), { b: 2 }, 'the original is unchanged');
  });
});
