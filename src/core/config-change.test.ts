import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyConfigChange, isConfigChanged } from './config-change.ts';
import { EMPTY_CONFIG_VALUES, parseConfigValues, type ConfigValues } from './values.ts';

const config = (data: Record<string, string>): ConfigValues => parseConfigValues(data, 'test');

const BASE_DATA: Record<string, string> = {
  global: 'a: 1\n',
  echoServer: 'replicas: 1\n',
  redis: 'size: small\n',
  redisEnabled: 'true',
};
const base = config(BASE_DATA);

describe('classifyConfigChange (docs/lifecycle.md step 16)', () => {
  it('reports nothing for the same config, however it is spelled', () => {
    const same = config({
      redisEnabled: 'true',
      redis: '{size: small}',
      echoServer: 'replicas: 1',
      global: '{a: 1}',
    });
    const change = classifyConfigChange(base, same);
    assert.deepEqual(change, { globalChanged: false, enabledChanged: [], modulesChanged: [] });
    assert.equal(isConfigChanged(change), false);
  });

  it('reports a changed global section', () => {
    const change = classifyConfigChange(base, config({ ...BASE_DATA, global: 'a: 2\n' }));
    assert.deepEqual(change, { globalChanged: true, enabledChanged: [], modulesChanged: [] });
    assert.equal(isConfigChanged(change), true);
  });

  it('reports the modules whose sections changed, appeared or disappeared', () => {
    const after = config({
      global: 'a: 1\n',
      echoServer: 'replicas: 2\n',
      redisEnabled: 'true',
      certManager: 'issuer: le\n',
    });
    assert.deepEqual(classifyConfigChange(base, after), {
      globalChanged: false,
      enabledChanged: [],
      modulesChanged: ['certManager', 'echoServer', 'redis'],
    });
  });

  it('reports flipped, added and removed *Enabled flags; a removed flag is not the same as false', () => {
    const after = config({ ...BASE_DATA, redisEnabled: 'false', echoServerEnabled: 'true' });
    assert.deepEqual(classifyConfigChange(base, after).enabledChanged, ['echoServer', 'redis']);
    const withoutFlag = Object.fromEntries(
      Object.entries(BASE_DATA).filter(([key]) => key !== 'redisEnabled'),
    );
    assert.deepEqual(classifyConfigChange(base, config(withoutFlag)).enabledChanged, ['redis']);
    const falseFlag = config({ ...BASE_DATA, redisEnabled: 'false' });
    assert.deepEqual(classifyConfigChange(falseFlag, config(withoutFlag)).enabledChanged, ['redis']);
  });

  it('treats an absent section as an empty one, as the values store reads it', () => {
    const empty = config({ global: '', echoServer: '{}' });
    assert.equal(isConfigChanged(classifyConfigChange(EMPTY_CONFIG_VALUES, empty)), false);
    assert.deepEqual(classifyConfigChange(EMPTY_CONFIG_VALUES, config({ echoServer: '[]' })).modulesChanged, [
      'echoServer',
    ]);
  });

  it('reports a deleted ConfigMap (empty config) as every section and flag it had', () => {
    assert.deepEqual(classifyConfigChange(base, EMPTY_CONFIG_VALUES), {
      globalChanged: true,
      enabledChanged: ['redis'],
      modulesChanged: ['echoServer', 'redis'],
    });
  });
});
