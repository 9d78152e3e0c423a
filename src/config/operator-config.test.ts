import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadOperatorConfig, OperatorConfigError } from './operator-config.ts';

describe('operator configuration', () => {
  it('has addon-operator defaults and needs only the namespace', () => {
    const config = loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon' });
    assert.deepEqual(config.modulesDirs, ['modules']);
    assert.equal(config.configMapName, 'addon-operator');
    assert.equal(config.listenAddress, '0.0.0.0');
    assert.equal(config.listenPort, 9650);
    assert.equal(config.metricsPrefix, 'addon_operator_');
    assert.equal(config.debugUnixSocket, '/var/run/addon-operator/debug.socket');
    assert.deepEqual(config.crdExtraLabels, { heritage: 'addon-operator' });
    assert.deepEqual(config.crdFilterPrefixes, ['doc-', '_']);
    assert.equal(config.helmTimeoutSeconds, 1200);
    assert.equal(config.resourcesMonitorIntervalMs, 270_000);
  });

  it("reads addon-operator's documented variable names, and flags win over the environment", () => {
    const config = loadOperatorConfig(
      {
        ADDON_OPERATOR_NAMESPACE: 'kaddon',
        MODULES_DIR: '/a:/b',
        GLOBAL_HOOKS_DIR: '/hooks',
        UNNUMBERED_MODULE_ORDER: '5',
        ADDON_OPERATOR_LISTEN_PORT: '9090',
        LOG_TYPE: 'json',
        HELM_TIMEOUT: '1h30m',
        ADDON_OPERATOR_CRD_EXTRA_LABELS: 'team=platform',
        QUEUE_ACTIONS_METRICS: 'no',
        KADDON_RESOURCES_MONITOR_INTERVAL: '2s',
      },
      { 'listen-port': '9191' },
    );
    assert.deepEqual(config.modulesDirs, ['/a', '/b']);
    assert.equal(config.globalHooksDir, '/hooks');
    assert.equal(config.unnumberedModulesOrder, 5);
    assert.equal(config.listenPort, 9191);
    assert.equal(config.logType, 'json');
    assert.equal(config.helmTimeoutSeconds, 5400);
    assert.deepEqual(config.crdExtraLabels, { heritage: 'addon-operator', team: 'platform' });
    assert.equal(config.queueActionsMetrics, false);
    assert.equal(config.resourcesMonitorIntervalMs, 2000);
  });

  it('names the variable to fix', () => {
    assert.throws(() => loadOperatorConfig({}), /setting 'ADDON_OPERATOR_NAMESPACE': is not set/);
    const bad: [Record<string, string>, RegExp][] = [
      [{ ADDON_OPERATOR_LISTEN_PORT: '70000' }, /'ADDON_OPERATOR_LISTEN_PORT': '70000' is not a port/],
      [{ LOG_LEVEL: 'verbose' }, /'LOG_LEVEL': 'verbose' is not one of debug, info, error/],
      [{ HELM_TIMEOUT: 'soon' }, /'HELM_TIMEOUT': 'soon' is not a duration/],
      [{ LOG_NO_TIME: 'maybe' }, /'LOG_NO_TIME': 'maybe' is not true or false/],
      [
        { KADDON_RESOURCES_MONITOR_INTERVAL: '0s' },
        /'KADDON_RESOURCES_MONITOR_INTERVAL': '0s' is not a positive/,
      ],
    ];
    for (const [env, message] of bad) {
      assert.throws(
        () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'k', ...env }),
        (error: unknown) => error instanceof OperatorConfigError && message.test(error.message),
      );
    }
  });
});
