import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdFilterPrefixes, hookEnv, resolveHelmBinary, resolveNamespace } from './operator-config.ts';
import { SETTINGS } from '../core/setting-names.ts';
import { OperatorConfigError, SettingReader } from './setting-reader.ts';

describe('the settings table', () => {
  it('gives every variable and every flag to one setting only', () => {
    const variables = Object.values(SETTINGS).flatMap((setting) => setting.env);
    const flags = Object.values(SETTINGS).map((setting) => setting.flag);
    assert.equal(new Set(variables).size, variables.length);
    assert.equal(new Set(flags).size, flags.length);
  });
});

describe('SettingReader', () => {
  it('takes the flag first, then the first variable set and not empty', () => {
    const env = { ADDON_OPERATOR_LISTEN_PORT: '', SHELL_OPERATOR_LISTEN_PORT: '9000' };
    assert.deepEqual(new SettingReader(env).find('listenPort'), {
      name: 'SHELL_OPERATOR_LISTEN_PORT',
      value: '9000',
    });
    assert.deepEqual(new SettingReader(env, { 'listen-port': '9191' }).find('listenPort'), {
      name: '--listen-port',
      value: '9191',
    });
    assert.equal(new SettingReader({}).port('listenPort', 9650), 9650);
  });

  it('names the variable to fix when a value cannot be used', () => {
    assert.throws(
      () => new SettingReader({ KADDON_HA_RETRY_PERIOD: 'often' }).durationMs('haRetryPeriod', 10_000),
      (error: unknown) =>
        error instanceof OperatorConfigError && /setting 'KADDON_HA_RETRY_PERIOD'/.test(error.message),
    );
  });

  it('reads a percentage from 0 to 100, with or without %, and off as 100', () => {
    const percent = (value: string): number =>
      new SettingReader({ KADDON_PRUNE_GUARD_PERCENT: value }).percent('pruneGuardPercent', 50);
    assert.equal(new SettingReader({}).percent('pruneGuardPercent', 50), 50);
    assert.equal(percent('30'), 30);
    assert.equal(percent('30%'), 30);
    assert.equal(percent('0'), 0);
    assert.equal(percent('OFF'), 100);
    for (const bad of ['101', '-1', '12.5', 'half'])
      assert.throws(
        () => percent(bad),
        (error: unknown) =>
          error instanceof OperatorConfigError &&
          /setting 'KADDON_PRUNE_GUARD_PERCENT'.*from 0 to 100, or off/.test(error.message),
        bad,
      );
  });
});

describe('settings every command reads alike', () => {
  it("reads the operator's namespace under either name; only the fallback differs by command", () => {
    const shell = new SettingReader({ SHELL_OPERATOR_NAMESPACE: 'addons' });
    for (const user of ['operator', 'build', 'rbac'] as const)
      assert.equal(resolveNamespace(shell, user), 'addons');
    const flag = new SettingReader({ ADDON_OPERATOR_NAMESPACE: 'addons' }, { namespace: 'other' });
    assert.equal(resolveNamespace(flag, 'build'), 'other');
    const none = new SettingReader({});
    assert.equal(resolveNamespace(none, 'build'), 'default');
    assert.equal(resolveNamespace(none, 'rbac'), 'kaddon');
    assert.throws(() => resolveNamespace(none, 'operator'), /setting 'ADDON_OPERATOR_NAMESPACE': is not set/);
  });

  it('finds the helm binary by flag, HELM_BIN_PATH, KADDON_HELM_PATH, else on PATH', () => {
    const env = { HELM_BIN_PATH: '/opt/helm', KADDON_HELM_PATH: '/usr/local/bin/helm' };
    assert.deepEqual(resolveHelmBinary(new SettingReader(env, { 'helm-path': './helm' })), {
      command: './helm',
      from: '--helm-path',
    });
    assert.deepEqual(resolveHelmBinary(new SettingReader(env)), {
      command: '/opt/helm',
      from: 'HELM_BIN_PATH',
    });
    assert.deepEqual(resolveHelmBinary(new SettingReader({ KADDON_HELM_PATH: '/h' })), {
      command: '/h',
      from: 'KADDON_HELM_PATH',
    });
    assert.deepEqual(resolveHelmBinary(new SettingReader({})), { command: 'helm', from: 'PATH' });
  });

  it('refuses a KADDON_HOOK_ENV it does not know, and keeps the CRD filter default for an empty value', () => {
    assert.equal(hookEnv(new SettingReader({ KADDON_HOOK_ENV: 'MINIMAL' })), 'minimal');
    assert.throws(() => hookEnv(new SettingReader({ KADDON_HOOK_ENV: 'none' })), /setting 'KADDON_HOOK_ENV'/);
    assert.deepEqual(crdFilterPrefixes(new SettingReader({ ADDON_OPERATOR_CRD_FILTER_PREFIXES: '' })), [
      'doc-',
      '_',
    ]);
  });
});
