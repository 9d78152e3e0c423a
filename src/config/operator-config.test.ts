import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { loadOperatorConfig, OperatorConfigError } from './operator-config.ts';

describe('operator configuration', () => {
  it('delivers natively unless KADDON_DELIVERY or --delivery says helm', () => {
    const byDefault = loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon' });
    assert.equal(byDefault.delivery, 'native');
    assert.equal(byDefault.deliveryChosen, false);
    const binary = loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon', KADDON_DELIVERY: 'helm' });
    assert.equal(binary.delivery, 'helm');
    assert.equal(binary.deliveryChosen, true);
    const flagged = loadOperatorConfig(
      { ADDON_OPERATOR_NAMESPACE: 'kaddon', KADDON_DELIVERY: 'helm' },
      { delivery: 'native' },
    );
    assert.equal(flagged.delivery, 'native');
    assert.equal(flagged.deliveryChosen, true);
    assert.throws(
      () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon', KADDON_DELIVERY: 'fast' }),
      /KADDON_DELIVERY/,
    );
  });

  it("falls back to shell-operator's names and reads the Kubernetes client settings", () => {
    const config = loadOperatorConfig({
      SHELL_OPERATOR_NAMESPACE: 'kaddon',
      SHELL_OPERATOR_HOOKS_DIR: '/hooks',
      SHELL_OPERATOR_LISTEN_ADDRESS: '127.0.0.1',
      SHELL_OPERATOR_LISTEN_PORT: '9115',
      SHELL_OPERATOR_PROMETHEUS_METRICS_PREFIX: 'shell_',
      KADDON_HELM_PATH: '/opt/kaddon-helm',
      HELM_BIN_PATH: '/usr/local/bin/helm',
      KUBE_CONTEXT: 'prod',
      KUBE_SERVER: 'https://10.0.0.1:6443',
      KUBE_CLIENT_QPS: '20.5',
      KUBE_CLIENT_BURST: '40',
      HELM_MONITOR_KUBE_CLIENT_QPS: '2',
      OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT: '30s',
      HELM3: 'yes',
    });
    assert.equal(config.namespace, 'kaddon');
    assert.equal(config.globalHooksDir, '/hooks');
    assert.equal(config.listenAddress, '127.0.0.1');
    assert.equal(config.listenPort, 9115);
    assert.equal(config.metricsPrefix, 'shell_');
    assert.equal(config.helmPath, '/usr/local/bin/helm', 'HELM_BIN_PATH, the documented name, comes first');
    assert.equal(config.helmPathSetting, 'HELM_BIN_PATH');
    assert.equal(config.kubeContext, 'prod');
    assert.equal(config.kubeServer, 'https://10.0.0.1:6443');
    assert.equal(config.kubeClientQps, 20.5);
    assert.equal(config.kubeClientBurst, 40);
    assert.equal(config.monitorKubeClientQps, 2);
    assert.equal(config.monitorKubeClientBurst, 10);
    assert.equal(config.objectPatcherTimeoutMs, 30_000);
    assert.equal(config.hookEnv, 'operator');
  });

  it('names the variable of a rate that is not a number', () => {
    assert.throws(
      () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon', KUBE_CLIENT_QPS: 'fast' }),
      (error: unknown) =>
        error instanceof OperatorConfigError && /'KUBE_CLIENT_QPS': 'fast' is not a rate/.test(error.message),
    );
  });

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
    assert.equal(config.concurrentDeliveries, 4);
  });

  it('reads KADDON_CONCURRENT_DELIVERIES, 0 meaning one at a time, and names it when it is not a number', () => {
    const base = { ADDON_OPERATOR_NAMESPACE: 'kaddon' };
    assert.equal(loadOperatorConfig({ ...base, KADDON_CONCURRENT_DELIVERIES: '8' }).concurrentDeliveries, 8);
    assert.equal(loadOperatorConfig({ ...base, KADDON_CONCURRENT_DELIVERIES: '0' }).concurrentDeliveries, 1);
    assert.throws(
      () => loadOperatorConfig({ ...base, KADDON_CONCURRENT_DELIVERIES: 'many' }),
      (error: unknown) =>
        error instanceof OperatorConfigError && /KADDON_CONCURRENT_DELIVERIES/.test(error.message),
    );
  });

  it('reads KADDON_CONCURRENT_MODULE_RUNS, by default the CPUs there are, 0 meaning one at a time', () => {
    const base = { ADDON_OPERATOR_NAMESPACE: 'kaddon' };
    assert.equal(loadOperatorConfig(base).concurrentModuleRuns, availableParallelism());
    assert.equal(loadOperatorConfig({ ...base, KADDON_CONCURRENT_MODULE_RUNS: '6' }).concurrentModuleRuns, 6);
    assert.equal(loadOperatorConfig({ ...base, KADDON_CONCURRENT_MODULE_RUNS: '0' }).concurrentModuleRuns, 1);
    assert.throws(
      () => loadOperatorConfig({ ...base, KADDON_CONCURRENT_MODULE_RUNS: 'all' }),
      (error: unknown) =>
        error instanceof OperatorConfigError && /KADDON_CONCURRENT_MODULE_RUNS/.test(error.message),
    );
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
      [{ LOG_LEVEL: 'verbose' }, /'LOG_LEVEL': 'verbose' is not one of debug, info, warn, error/],
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

  it('refuses every duration setting above 576h, naming it, and takes 576h', () => {
    // A Node timer fires at once above 24.8 days (docs/lifecycle.md "Bounds and timeouts").
    const durations = [
      'HELM_TIMEOUT',
      'OBJECT_PATCHER_KUBE_CLIENT_TIMEOUT',
      'KADDON_JQ_TIMEOUT',
      'KADDON_HELM_TEMPLATE_TIMEOUT',
      'KADDON_HOOK_TIMEOUT',
      'KADDON_HA_LEASE_DURATION',
      'KADDON_HA_RENEW_DEADLINE',
      'KADDON_HA_RETRY_PERIOD',
      'KADDON_RESOURCES_MONITOR_INTERVAL',
      'KADDON_HEALTH_TIMEOUT',
      'KADDON_DRIFT_INTERVAL',
    ];
    for (const name of durations) {
      for (const value of ['720h', '576h1s'])
        assert.throws(
          () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'k', [name]: value }),
          (error: unknown) =>
            error instanceof OperatorConfigError &&
            error.message ===
              `setting '${name}': '${value}' is longer than 576h (24 days), the longest duration kaddon can time.`,
          name,
        );
      assert.doesNotThrow(() => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'k', [name]: '576h' }), name);
    }
    assert.throws(
      () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'k', HELM_TIMEOUT: '2592000' }),
      /'HELM_TIMEOUT': '2592000' is longer than 576h/,
      'a number of seconds too',
    );
  });

  it('reads the Git webhook secret, or the file holding it, only beside a Git source', () => {
    const base = { ADDON_OPERATOR_NAMESPACE: 'k', MODULES_GIT_URL: 'https://example.com/m.git' };
    assert.equal(loadOperatorConfig(base).gitWebhookSecret, undefined);
    assert.deepEqual(loadOperatorConfig({ ...base, KADDON_GIT_WEBHOOK_SECRET: 's3' }).gitWebhookSecret, {
      value: 's3',
      setting: 'KADDON_GIT_WEBHOOK_SECRET',
    });
    const file = fileURLToPath(import.meta.url);
    assert.deepEqual(loadOperatorConfig({ ...base, KADDON_GIT_WEBHOOK_SECRET_FILE: file }).gitWebhookSecret, {
      file,
      setting: 'KADDON_GIT_WEBHOOK_SECRET_FILE',
    });
    const bad: [Record<string, string>, RegExp][] = [
      [{ KADDON_GIT_WEBHOOK_SECRET_FILE: '/nowhere/secret' }, /the file '\/nowhere\/secret' does not exist/],
      [{ KADDON_GIT_WEBHOOK_SECRET: 'a', KADDON_GIT_WEBHOOK_SECRET_FILE: file }, /is set together with/],
      [{ KADDON_GIT_WEBHOOK_SECRET: 'a', MODULES_GIT_URL: '' }, /MODULES_GIT_URL is not/],
    ];
    for (const [env, message] of bad)
      assert.throws(
        () => loadOperatorConfig({ ...base, ...env }),
        (error: unknown) => error instanceof OperatorConfigError && message.test(error.message),
      );
  });
});

describe('the Git webhook secret at start', () => {
  const base = { ADDON_OPERATOR_NAMESPACE: 'k', MODULES_GIT_URL: 'https://example.com/m.git' };
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-webhook-secret-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const refusal = (env: Record<string, string>): string => {
    try {
      loadOperatorConfig({ ...base, ...env });
    } catch (error: unknown) {
      if (error instanceof OperatorConfigError) return error.describe();
      throw error;
    }
    return 'accepted';
  };

  it('refuses an empty, newline-only or blank file, naming the setting and the file', () => {
    for (const [name, text] of [
      ['empty', ''],
      ['newline', '\n'],
      ['crlf', '\r\n'],
      ['blank', ' \t\n\n'],
    ] as const) {
      const file = write(name, text);
      assert.equal(
        refusal({ KADDON_GIT_WEBHOOK_SECRET_FILE: file }),
        `setting 'KADDON_GIT_WEBHOOK_SECRET_FILE': the file '${file}' is empty or blank: an HMAC keyed with nothing is one anyone can make. Put the secret shared with the Git host there (for example the output of \`openssl rand -hex 32\`).`,
      );
    }
  });

  it('refuses a directory and a missing file, naming the setting', () => {
    assert.match(
      refusal({ KADDON_GIT_WEBHOOK_SECRET_FILE: dir }),
      /^setting 'KADDON_GIT_WEBHOOK_SECRET_FILE': '.*' is a directory, not a file\. Mount the secret/u,
    );
    assert.match(
      refusal({ KADDON_GIT_WEBHOOK_SECRET_FILE: path.join(dir, 'absent') }),
      /^setting 'KADDON_GIT_WEBHOOK_SECRET_FILE': the file '.*absent' does not exist\./u,
    );
  });

  it('refuses a blank secret given in the environment', () => {
    assert.match(
      refusal({ KADDON_GIT_WEBHOOK_SECRET: '\n' }),
      /^setting 'KADDON_GIT_WEBHOOK_SECRET': is blank/u,
    );
    assert.match(refusal({ KADDON_GIT_WEBHOOK_SECRET: '   ' }), /is blank/u);
  });

  it('accepts a secret file with a trailing newline', () => {
    assert.equal(refusal({ KADDON_GIT_WEBHOOK_SECRET_FILE: write('good', 's3cret\n') }), 'accepted');
  });
});
