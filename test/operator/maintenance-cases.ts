import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, scalarText, type JsonObject } from '../../src/core/json.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import { runCli } from '../run-cli.ts';
import { NotificationReceiver } from '../observability/notification-receiver.ts';
import { createHmac } from 'node:crypto';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-maintenance';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const MODULES = '/apis/kaddon.dev/v1alpha1/modules';
/** Checked this often: a hand edit left for many checks was left on purpose, not missed. */
const DRIFT_INTERVAL = '1s';

let env: OperatorEnvironment;
/** KADDON_DELIVERY of the operators started: both engines run these cases (docs/delivery.md). */
let delivery: 'native' | 'helm' = 'native';
let repo: GitFixture;
let operator: E2eOperator;
let markFile: string;
let runsFile: string;
let receiver: NotificationReceiver;
const HMAC_KEY = 'maintenance-test-key';

const kustomization = (...resources: string[]): string =>
  `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n${resources.map((r) => `- ${r}\n`).join('')}`;

/** app's beforeHelm hook: appends a line to runs.log and puts mark.txt into app.fromHook. */
function appHook(): string {
  return `#!/bin/bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","beforeHelm":10}'; exit 0; fi
echo run >> '${runsFile}'
if [ "$(cat '${markFile}')" = fail ]; then echo "mark says fail" >&2; exit 1; fi
echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/app/fromHook\\",\\"value\\":\\"$(cat '${markFile}')\\"}]" > "$VALUES_JSON_PATCH_PATH"
`;
}

function tree(otherData: string): Record<string, string> {
  return {
    'modules/values.yaml': 'global: {}\nappEnabled: true\notherEnabled: true\n',
    'modules/010-app/values.yaml': 'app:\n  greeting: hello\n  fromHook: none\n',
    'modules/010-app/kustomization.yaml': kustomization('app.yaml', 'extra.yaml'),
    'modules/010-app/app.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: $(app.greeting)\n  hook: $(app.fromHook)\n',
    'modules/010-app/extra.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-extra\ndata:\n  x: "1"\n',
    'modules/010-app/hooks/mark.sh': appHook(),
    'modules/020-other/kustomization.yaml': kustomization('other.yaml'),
    'modules/020-other/other.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n${otherData}`,
  };
}

function startOperator(): E2eOperator {
  return env.startOperator({
    modulesDir: path.join(env.tree.root, 'not-used'),
    forceKillAfterDelay: 30_000,
    extraEnv: {
      MODULES_GIT_URL: repo.fileUrl,
      MODULES_GIT_SUBPATH: 'modules',
      // A poll far off: only a reconcile request fetches sooner.
      MODULES_GIT_POLL_INTERVAL: '1h',
      MODULES_GIT_CACHE_DIR: path.join(env.tree.root, 'git-cache'),
      KADDON_DRIFT_INTERVAL: DRIFT_INTERVAL,
      // Two modules: one uninstall is half of them, which the prune guard would hold.
      KADDON_PRUNE_GUARD_PERCENT: '100',
      KADDON_DELIVERY: delivery,
    },
  });
}

/**
 * docs/operations.md seen from outside, with `engine` delivering: maintenance, reconcile now and
 * notifications of one operator following a Git repository, against the real API server and helm.
 * With `helm`, the maintenance cases only: the rest does not depend on who writes the release.
 */
export function describeMaintenance(engine: 'native' | 'helm'): void {
  delivery = engine;
  before(async () => {
    env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-maintenance' });
    markFile = path.join(env.tree.root, 'mark.txt');
    runsFile = path.join(env.tree.root, 'runs.log');
    writeFileSync(markFile, 'm1');
    writeFileSync(runsFile, '');
    repo = makeGitFixture('operator-maintenance');
    repo.write(tree('  v: "1"\n'));
    chmodSync(path.join(repo.git('rev-parse', '--show-toplevel'), 'modules/010-app/hooks/mark.sh'), 0o755);
    repo.commit('two modules');
    await setOperatorConfig(env.api, NAMESPACE, {});
    // docs/notifications.md: a webhook channel for everything but deliveries, read at start.
    receiver = await NotificationReceiver.start();
    await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'kaddon-notifications' },
        stringData: { 'hook-url': receiver.url, 'hook-hmac': HMAC_KEY },
      },
    });
    await env.api.request('POST', CONFIGMAPS, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kaddon-notifications' },
        data: {
          notifications: [
            'channels:',
            '  - name: on-call',
            '    type: webhook',
            '    urlKey: hook-url',
            '    secretKey: hook-hmac',
            '    events: [failure, recovery, held-uninstall, maintenance-start, maintenance-end]',
            'groupWindow: 1s',
          ].join('\n'),
        },
      },
    });
    operator = startOperator();
    await waitReady(operator, env.port);
    // Module objects are written just after the first convergence.
    for (const module of ['app', 'other'])
      await eventually(operator, `Module ${module} Ready`, async () =>
        condition(await moduleObject(module), 'Ready')?.status === 'True' ? true : undefined,
      );
  });

  after(async () => {
    await env.stop();
    await receiver.close();
    repo.remove();
  });

  /** The webhook messages received so far, each checked against its HMAC signature. */
  function messages(): JsonObject[] {
    return receiver.requests.map((request) => {
      const signature = `sha256=${createHmac('sha256', HMAC_KEY).update(request.raw).digest('hex')}`;
      assert.equal(request.headers['x-kaddon-signature'], signature);
      assert.ok(isJsonObject(request.json));
      return request.json;
    });
  }

  function messagesOf(kind: string, module: string): JsonObject[] {
    return messages().filter(
      (message) =>
        message.kind === kind && Array.isArray(message.modules) && message.modules.includes(module),
    );
  }

  async function configMapData(name: string): Promise<JsonObject | undefined> {
    const object = await env.api.request('GET', `${CONFIGMAPS}/${name}`).catch(() => undefined);
    return object !== undefined && isJsonObject(object.data) ? object.data : undefined;
  }

  async function moduleObject(name: string): Promise<JsonObject> {
    return env.api.request('GET', `${MODULES}/${name}`);
  }

  function statusOf(object: JsonObject): JsonObject {
    return isJsonObject(object.status) ? object.status : {};
  }

  function condition(object: JsonObject, type: string): JsonObject | undefined {
    const conditions = statusOf(object).conditions;
    return Array.isArray(conditions)
      ? conditions.filter(isJsonObject).find((entry) => entry.type === type)
      : undefined;
  }

  async function helmRevision(release: string): Promise<number | undefined> {
    return (await env.helm.status(release, NAMESPACE))?.revision;
  }

  /** `kubectl edit`'s kind of change: a merge patch of one field, as another field manager. */
  async function editByHand(name: string, data: JsonObject): Promise<void> {
    await env.api.request('PATCH', `${CONFIGMAPS}/${name}`, {
      body: { data },
      contentType: 'application/merge-patch+json',
    });
  }

  async function cli(...args: string[]): Promise<string> {
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = env.cluster.kubeconfigPath;
    try {
      const run = await runCli(args);
      assert.equal(run.code, 0, `kaddon ${args.join(' ')}: ${run.stderr}`);
      return run.stdout;
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previous;
    }
  }

  /** Waits `seconds`, checking each second that `check` still holds. */
  async function holdsFor(seconds: number, what: string, check: () => Promise<boolean>): Promise<void> {
    for (let second = 0; second < seconds; second++) {
      assert.ok(
        await check(),
        `${what}: changed after ${String(second)} s. Operator output:\n${operator.tail()}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function moduleEvents(module: string): Promise<string[]> {
    const list = await env.api.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
    const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
    return items
      .filter((event) => isJsonObject(event.regarding) && event.regarding.name === module)
      .map((event) => scalarText(event.reason));
  }

  describe('kaddon operator: maintenance leaves a module alone, across a restart, and ends with one delivery', () => {
    it('on: the Module says so, the metric is 1, an Event marks the start', async () => {
      assert.deepEqual(await configMapData('app'), { greeting: 'hello', hook: 'm1' });
      const said = await cli('module', 'maintenance', 'app', 'on');
      assert.match(said, /^module app: maintenance on: kaddon leaves it alone/u);
      const object = await eventually(operator, 'Ready=Unknown Maintenance', async () => {
        const current = await moduleObject('app');
        return condition(current, 'Ready')?.reason === 'Maintenance' ? current : undefined;
      });
      assert.equal(condition(object, 'Ready')?.status, 'Unknown');
      assert.equal(condition(object, 'Maintenance')?.status, 'True');
      assert.match(scalarText(condition(object, 'Ready')?.message), /^in maintenance since \d{4}-/u);
      assert.equal(
        sample(await scrapeMetrics(env.port), 'addon_operator_module_maintenance', { module: 'app' }),
        1,
      );
      assert.equal(
        sample(await scrapeMetrics(env.port), 'addon_operator_module_maintenance', { module: 'other' }),
        0,
      );
      await eventually(operator, 'MaintenanceStarted Event', async () =>
        (await moduleEvents('app')).includes('MaintenanceStarted') ? true : undefined,
      );
      await eventually(operator, 'a maintenance-start notification', () =>
        Promise.resolve(messagesOf('maintenance-start', 'app').length === 1 ? true : undefined),
      );
    });

    it('a hand edit and a hand delete stay, a values change runs the hooks but is not delivered', async () => {
      const revision = await helmRevision('app');
      await editByHand('app', { greeting: 'by-hand' });
      await env.api.request('DELETE', `${CONFIGMAPS}/app-extra`);
      const runs = readFileSync(runsFile, 'utf8').length;
      await setOperatorConfig(env.api, NAMESPACE, { app: 'greeting: changed\n' });
      await eventually(operator, 'a delivery held', async () => {
        const maintenance = statusOf(await moduleObject('app')).maintenance;
        return isJsonObject(maintenance) && maintenance.pending === true ? true : undefined;
      });
      assert.ok(readFileSync(runsFile, 'utf8').length > runs, 'the hooks ran in maintenance');
      await holdsFor(10, 'the hand edit, in maintenance', async () => {
        const data = await configMapData('app');
        return data?.greeting === 'by-hand' && (await configMapData('app-extra')) === undefined;
      });
      assert.equal(await helmRevision('app'), revision, 'no release revision in maintenance');
    });

    it('survives a restart: the new operator delivers nothing of it and recreates nothing', async () => {
      operator.process.kill('SIGTERM');
      await operator.process;
      operator = startOperator();
      await waitReady(operator, env.port);
      await holdsFor(6, 'the hand edit after a restart', async () => {
        const data = await configMapData('app');
        return data?.greeting === 'by-hand' && (await configMapData('app-extra')) === undefined;
      });
      const object = await moduleObject('app');
      assert.equal(condition(object, 'Ready')?.reason, 'Maintenance');
      assert.match(
        operator.output(),
        /module in maintenance: not delivered, drift not corrected, not uninstalled/u,
      );
    });

    it('is not uninstalled when disabled in maintenance; the uninstall runs when it ends', async () => {
      // The other module shows what a disable does outside maintenance, with the same converge.
      await cli('module', 'maintenance', 'other', 'on');
      await eventually(operator, 'other in maintenance', async () =>
        condition(await moduleObject('other'), 'Ready')?.reason === 'Maintenance' ? true : undefined,
      );
      await setOperatorConfig(env.api, NAMESPACE, { otherEnabled: 'false', app: 'greeting: changed\n' });
      await eventually(operator, 'UninstallHeld Event', async () =>
        (await moduleEvents('other')).includes('UninstallHeld') ? true : undefined,
      );
      assert.deepEqual(await configMapData('other'), { v: '1' });
      await cli('module', 'maintenance', 'other', 'off');
      await eventually(operator, 'other uninstalled', async () =>
        (await configMapData('other')) === undefined && (await helmRevision('other')) === undefined
          ? true
          : undefined,
      );
    });

    it('off: one delivery puts the hand edit back, recreates the deleted object and lands the values change', async () => {
      const said = await cli('module', 'maintenance', 'app', 'off');
      assert.match(said, /^module app: maintenance off/u);
      await eventually(operator, 'the desired state delivered', async () => {
        const data = await configMapData('app');
        return data?.greeting === 'changed' && (await configMapData('app-extra')) !== undefined
          ? true
          : undefined;
      });
      await eventually(operator, 'Ready=True', async () =>
        condition(await moduleObject('app'), 'Ready')?.status === 'True' ? true : undefined,
      );
      const object = await moduleObject('app');
      assert.equal(condition(object, 'Maintenance'), undefined);
      assert.equal(statusOf(object).maintenance, undefined);
      assert.equal(
        sample(await scrapeMetrics(env.port), 'addon_operator_module_maintenance', { module: 'app' }),
        0,
      );
      await eventually(operator, 'MaintenanceEnded Event', async () =>
        (await moduleEvents('app')).includes('MaintenanceEnded') ? true : undefined,
      );
      await eventually(operator, 'a maintenance-end notification', () =>
        Promise.resolve(messagesOf('maintenance-end', 'app').length === 1 ? true : undefined),
      );
      assert.equal(messagesOf('held-uninstall', 'other').length, 1);
    });

    it("addon-operator's failure sequence: set, change a value, remove, change again — the module stays managed", async () => {
      await cli('module', 'maintenance', 'app', 'on');
      await eventually(operator, 'in maintenance', async () =>
        condition(await moduleObject('app'), 'Ready')?.reason === 'Maintenance' ? true : undefined,
      );
      await setOperatorConfig(env.api, NAMESPACE, { otherEnabled: 'false', app: 'greeting: second\n' });
      await holdsFor(
        3,
        'not delivered in maintenance',
        async () => (await configMapData('app'))?.greeting === 'changed',
      );
      await cli('module', 'maintenance', 'app', 'off');
      await eventually(operator, 'second delivered', async () =>
        (await configMapData('app'))?.greeting === 'second' ? true : undefined,
      );
      await setOperatorConfig(env.api, NAMESPACE, { otherEnabled: 'false', app: 'greeting: third\n' });
      await eventually(operator, 'third delivered: not stuck unmanaged', async () =>
        (await configMapData('app'))?.greeting === 'third' ? true : undefined,
      );
      await editByHand('app', { greeting: 'by-hand' });
      await eventually(operator, 'drift corrected again', async () =>
        (await configMapData('app'))?.greeting === 'third' ? true : undefined,
      );
    });
  });

  // Notifications and reconcile now do not depend on who writes the release: native engine only.
  if (engine === 'helm') return;

  describe('kaddon operator: notifications of a failing module, one per episode', () => {
    it('a module failing again and again is announced once, and its recovery once, with the downtime', async () => {
      writeFileSync(markFile, 'fail');
      await cli('module', 'reconcile', 'app');
      const failure = await eventually(operator, 'a failure notification', () =>
        Promise.resolve(messagesOf('failure', 'app')[0]),
      );
      assert.equal(failure.reason, 'HookFailed');
      assert.match(scalarText(failure.message), /mark says fail/u);
      // Retried after 5 and 10 s (docs/lifecycle.md "Failure isolation"): failures, not messages.
      await eventually(operator, 'a third failed run', () =>
        Promise.resolve(
          (operator.output().match(/module app failed; retried/gu) ?? []).length >= 3 ? true : undefined,
        ),
      );
      assert.equal(messagesOf('failure', 'app').length, 1);
      writeFileSync(markFile, 'm4');
      await cli('module', 'reconcile', 'app');
      const [recovery] = await eventually(operator, 'a recovery notification', () => {
        const found = messagesOf('recovery', 'app');
        return Promise.resolve(found.length > 0 ? found : undefined);
      });
      assert.ok(
        isJsonObject(recovery?.episode) && typeof recovery.episode.downSeconds === 'number',
        JSON.stringify(recovery),
      );
      assert.equal(messagesOf('failure', 'app').length, 1);
    });
  });

  describe('kaddon operator: reconcile now', () => {
    it('a Module annotation runs the module now: hooks, delivery, and the status names the request', async () => {
      writeFileSync(markFile, 'm2');
      const said = await cli('module', 'reconcile', 'app', '--wait', '--timeout', '60s');
      const requestedAt = /reconcile requested at (\S+)/u.exec(said)?.[1];
      assert.ok(requestedAt !== undefined, said);
      assert.match(said, /module app: reconciled; Ready=True Succeeded/u);
      assert.equal((await configMapData('app'))?.hook, 'm2');
      assert.equal(statusOf(await moduleObject('app')).lastHandledReconcileAt, requestedAt);
    });

    it('by kubectl: the same annotation set by hand is answered', async () => {
      writeFileSync(markFile, 'm3');
      const token = 'by-kubectl-1';
      await env.api.request('PATCH', `${MODULES}/app`, {
        body: { metadata: { annotations: { 'reconcile.kaddon.dev/requestedAt': token } } },
        contentType: 'application/merge-patch+json',
      });
      await eventually(operator, 'the request answered', async () =>
        statusOf(await moduleObject('app')).lastHandledReconcileAt === token ? true : undefined,
      );
      assert.equal((await configMapData('app'))?.hook, 'm3');
    });

    it('the whole tree: --all fetches the Git source now, with its poll an hour off', async () => {
      await setOperatorConfig(env.api, NAMESPACE, { otherEnabled: 'true', app: 'greeting: third\n' });
      await eventually(operator, 'other enabled again', async () =>
        (await configMapData('other'))?.v === '1' ? true : undefined,
      );
      repo.write({
        'modules/020-other/other.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  v: "2"\n',
      });
      const commit = repo.commit('other v2');
      const said = await cli('module', 'reconcile', '--all', '--namespace', NAMESPACE);
      assert.match(said, /^the whole tree: reconcile requested at /u);
      await eventually(operator, 'the new revision delivered', async () =>
        (await configMapData('other'))?.v === '2' ? true : undefined,
      );
      assert.match(operator.output(), new RegExp(`new revision in use" revision=${commit}`, 'u'));
    });

    it('names an unknown module and what to do', async () => {
      const previous = process.env.KUBECONFIG;
      process.env.KUBECONFIG = env.cluster.kubeconfigPath;
      try {
        const run = await runCli(['module', 'maintenance', 'nope', 'on']);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /module 'nope': no Module object in the cluster/u);
      } finally {
        if (previous === undefined) delete process.env.KUBECONFIG;
        else process.env.KUBECONFIG = previous;
      }
    });
  });
}
