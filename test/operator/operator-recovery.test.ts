import assert from 'node:assert/strict';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { isJsonObject } from '../../src/core/json.ts';
import { KubeApiError } from '../../src/delivery/kube-client.ts';
import { runCli } from '../run-cli.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  killOperatorTree,
  setOperatorConfig,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
  stateModuleFiles,
} from './operator-e2e-kit.ts';
import { crdYaml } from '../kubernetes/crd-yaml.ts';

const NAMESPACE = 'kaddon-recovery-e2e';
const CRD_LABEL = 'kaddon-e2e';

let env: OperatorEnvironment;
/** Files the hooks write and the test reads, in the temp tree. */
const files = {
  get attemptsLog(): string {
    return path.join(env.tree.root, 'flaky-attempts.log');
  },
  get failMarker(): string {
    return path.join(env.tree.root, 'flaky-fails');
  },
  get afterDeleteMarker(): string {
    return path.join(env.tree.root, 'toggled-after-delete.json');
  },
  get afterDeleteLog(): string {
    return path.join(env.tree.root, 'toggled-after-delete.log');
  },
  get startupLog(): string {
    return path.join(env.tree.root, 'global-startup.log');
  },
  get enabledLog(): string {
    return path.join(env.tree.root, 'picky-enabled.log');
  },
  get hangMarker(): string {
    return path.join(env.tree.root, 'flaky-hangs');
  },
  get hookPid(): string {
    return path.join(env.tree.root, 'flaky-hook.pid');
  },
};
let operator: E2eOperator;

function startOperator(): E2eOperator {
  return env.startOperator({
    // Past the operator's own 20 s shutdown limit: SIGTERM's grace period is under test.
    forceKillAfterDelay: 30_000,
    // The blocked upgrade of the crash scenario must not outlive the test if the kill is late.
    extraEnv: {
      HELM_TIMEOUT: '60s',
      // addon-operator's head-of-line retry is what this file pins (docs/lifecycle.md "Failure isolation").
      KADDON_MODULE_FAILURE_POLICY: 'block',
      ADDON_OPERATOR_CRD_EXTRA_LABELS: `heritage=${CRD_LABEL}`,
      GLOBAL_HOOKS_DIR: path.join(env.tree.root, 'global-hooks'),
    },
  });
}

before(async () => {
  env = await startOperatorEnvironment({
    namespace: NAMESPACE,
    prefix: 'operator-recovery',
    uninstallTimeoutSeconds: 30,
  });
  await writeModules();
  operator = startOperator();
  await waitReady(operator, env.port);
});
after(() => env.stop());

/**
 * Five isolated modules: `flaky` (a beforeHelm hook that fails while the fail marker exists),
 * `steady`, `toggled` (an afterDeleteHelm hook), `widgets` (crds/) and `slow` (a helm pre-upgrade
 * hook Job, which never completes without a kube-controller-manager, while `slow.blockUpgrade`).
 */
async function writeModules(): Promise<void> {
  const state = (module: string, data: string): Record<string, string> =>
    stateModuleFiles(NAMESPACE, module, data);
  env.tree.write('modules/010-flaky', {
    ...state('flaky', '  rev: "$(flaky.rev)"\n'),
    'values.yaml': 'flakyEnabled: true\nflaky:\n  rev: 0\n',
    'hooks/before-helm.mjs': hookScript({ configVersion: 'v1', beforeHelm: 10 }, [
      `appendFileSync(${JSON.stringify(files.attemptsLog)}, Date.now() + '\\n');`,
      `if (existsSync(${JSON.stringify(files.hangMarker)})) {`,
      `  writeFileSync(${JSON.stringify(files.hookPid)}, String(process.pid));`,
      '  await new Promise((resolve) => setTimeout(resolve, 120_000));',
      '}',
      `if (existsSync(${JSON.stringify(files.failMarker)})) {`,
      `  console.error('failing on purpose while the marker exists');`,
      '  process.exit(1);',
      '}',
    ]),
  });
  env.tree.write('modules/020-steady', {
    ...state('steady', '  rev: "$(steady.rev)"\n'),
    'values.yaml': 'steadyEnabled: true\nsteady:\n  rev: 0\n',
    // Fails every second in its own queue; allowFailure: counted, never retried, nothing waits.
    'hooks/noisy.mjs': hookScript(
      {
        configVersion: 'v1',
        schedule: [{ name: 'every-second', crontab: '* * * * * *', allowFailure: true, queue: 'noise' }],
      },
      ['process.exit(1);'],
    ),
  });
  env.tree.write('modules/030-toggled', {
    ...state('toggled', '  ready: "yes"\n'),
    'values.yaml': 'toggledEnabled: true\n',
    // Fails its first run: the ModuleDelete is retried (module_delete_errors_total).
    'hooks/after-delete.mjs': hookScript({ configVersion: 'v1', afterDeleteHelm: 10 }, [
      `appendFileSync(${JSON.stringify(files.afterDeleteLog)}, 'run\\n');`,
      `if (readFileSync(${JSON.stringify(files.afterDeleteLog)}, 'utf8').split('\\n').length < 3) process.exit(1);`,
      `copyFileSync(process.env.BINDING_CONTEXT_PATH, ${JSON.stringify(files.afterDeleteMarker)});`,
    ]),
  });
  env.tree.write('modules/040-widgets', {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- widget.yaml\n`,
    'widget.yaml':
      'apiVersion: e2e.kaddon.dev/v1\nkind: Widget\nmetadata:\n  name: sample\nspec:\n  size: 3\n',
    'values.yaml': 'widgetsEnabled: true\n',
    'crds/widgets.yaml': crd('widgets', 'Widget'),
    'crds/doc-skip.yaml': crd('gadgets', 'Gadget'),
  });
  env.tree.write('modules/050-slow', {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- state.yaml\ncomponents:\n- path: components/block\n  when: .slow.blockUpgrade\n`,
    'state.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow-state\ndata:\n  block: "$(slow.blockUpgrade)"\n',
    'values.yaml': 'slowEnabled: true\nslow:\n  blockUpgrade: false\n',
    'components/block/kustomization.yaml':
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- job.yaml\n',
    'components/block/job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: slow-pre-upgrade
  annotations:
    helm.sh/hook: pre-upgrade
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: wait
        image: busybox
`,
  });
  // A global onStartup hook that fails its first run, and an `enabled` script that fails twice.
  env.tree.write('global-hooks', {
    'startup.mjs': hookScript({ configVersion: 'v1', onStartup: 1 }, [
      `appendFileSync(${JSON.stringify(files.startupLog)}, Date.now() + '\\n');`,
      `if (readFileSync(${JSON.stringify(files.startupLog)}, 'utf8').trim().split('\\n').length < 2) process.exit(1);`,
    ]),
  });
  env.tree.write('modules/060-picky', {
    ...state('picky', '  ready: "yes"\n'),
    'values.yaml': 'pickyEnabled: true\n',
    enabled: [
      '#!/usr/bin/env node',
      "import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';",
      `appendFileSync(${JSON.stringify(files.enabledLog)}, Date.now() + '\\n');`,
      `if (readFileSync(${JSON.stringify(files.enabledLog)}, 'utf8').trim().split('\\n').length < 3) process.exit(1);`,
      "writeFileSync(process.env.MODULE_ENABLED_RESULT, 'true');",
      '',
    ].join('\n'),
  });
  for (const hook of [
    'modules/010-flaky/hooks/before-helm.mjs',
    'modules/030-toggled/hooks/after-delete.mjs',
    'modules/020-steady/hooks/noisy.mjs',
    'global-hooks/startup.mjs',
    'modules/060-picky/enabled',
  ])
    await chmod(path.join(env.tree.root, hook), 0o755);
}

function hookScript(config: Record<string, unknown>, body: readonly string[]): string {
  return [
    '#!/usr/bin/env node',
    "import { appendFileSync, copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';",
    "if (process.argv[2] === '--config') {",
    `  console.log(${JSON.stringify(JSON.stringify(config))});`,
    '  process.exit(0);',
    '}',
    ...body,
    '',
  ].join('\n');
}

function crd(plural: string, kind: string): string {
  return crdYaml('e2e.kaddon.dev', plural, kind, { owner: 'widgets-module' });
}

async function revision(release: string): Promise<number | undefined> {
  return (await env.helm.status(release, NAMESPACE))?.revision;
}

/** `helm get hooks slow`: the hook manifests helm keeps apart from the release manifest. */
async function releaseHooks(atRevision?: number): Promise<string> {
  const args = ['get', 'hooks', 'slow', '--namespace', NAMESPACE];
  if (atRevision !== undefined) args.push('--revision', String(atRevision));
  return (await execa(env.helmPath, args, { env: { KUBECONFIG: env.cluster.kubeconfigPath } })).stdout;
}

/** When helm wrote the newest revision of `release` (`helm history`'s `updated`). */

/** Milliseconds since the epoch, one line each, as the hooks append them. */
async function timestamps(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

async function attempts(): Promise<number[]> {
  return timestamps(files.attemptsLog);
}

async function getObject(apiPath: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await env.api.request('GET', apiPath);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

interface DumpedTask {
  type: string;
  description: string;
  failures: number;
  lastError?: string;
}

async function mainQueueTasks(): Promise<DumpedTask[]> {
  const socket = ['--debug-unix-socket', path.join(env.tree.root, 'debug.socket')];
  const run = await runCli(['queue', 'list', '-o', 'json', ...socket]);
  assert.equal(run.code, 0, run.stderr);
  const dump = JSON.parse(run.stdout) as { active: { name: string; tasks: DumpedTask[] }[] };
  return dump.active.find((queue) => queue.name === 'main')?.tasks ?? [];
}

describe('kaddon operator: failures, crashes and module lifecycle against a real cluster', () => {
  it('retries a failing global onStartup hook and a failing enabled script instead of stopping', async () => {
    // The operator became ready in before(): both failures were retried, none was fatal.
    const startup = await timestamps(files.startupLog);
    assert.equal(startup.length, 2, 'onStartup ran twice: failed, then succeeded');
    assert.ok((startup[1] ?? 0) - (startup[0] ?? 0) >= 4_500, 'retried after the 5 s backoff');
    const enabled = await timestamps(files.enabledLog);
    assert.ok(enabled.length >= 3, `the enabled script ran ${String(enabled.length)} times`);
    const [first = 0, second = 0, third = 0] = enabled;
    assert.ok(second - first >= 4_500 && third - second >= 4_500, 'discovery retried after 5 s');
    // Every 5 s (docs/lifecycle.md "Helm delivery"), not the growing task backoff, which would wait 10 s the
    // second time.
    assert.ok(third - second < 9_000, `second retry after ${String(third - second)} ms`);
    assert.equal(await revision('picky'), 1, 'the module is installed once its script succeeds');
  });

  it('applies crds/ with the extra labels before the release that uses them, skipping doc- files', async () => {
    const crd = await getObject(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.e2e.kaddon.dev',
    );
    const metadata = isJsonObject(crd?.metadata) ? crd.metadata : {};
    assert.deepEqual(metadata.labels, { heritage: CRD_LABEL, owner: 'widgets-module' });
    assert.equal(
      await getObject('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.e2e.kaddon.dev'),
      undefined,
      'crds/doc-skip.yaml is not applied',
    );
    assert.match(await env.helm.getManifest('widgets', NAMESPACE), /^kind: Widget$/mu);
    const widget = await getObject(`/apis/e2e.kaddon.dev/v1/namespaces/${NAMESPACE}/widgets/sample`);
    assert.deepEqual(widget?.spec, { size: 3 });
  });

  it('runs afterDeleteHelm when a module is disabled (retried when it fails) and installs it again when enabled', async () => {
    assert.equal((await env.helm.status('toggled', NAMESPACE))?.status, 'deployed');
    assert.equal(await readFile(files.afterDeleteMarker, 'utf8').catch(() => undefined), undefined);
    await setOperatorConfig(env.api, NAMESPACE, { toggledEnabled: 'false' });
    await eventually(operator, 'toggled uninstalled', async () =>
      (await env.helm.list(NAMESPACE)).includes('toggled') ? undefined : true,
    );
    const contexts = await eventually(operator, 'afterDeleteHelm marker', () =>
      readFile(files.afterDeleteMarker, 'utf8'),
    );
    assert.deepEqual(JSON.parse(contexts), [{ binding: 'afterDeleteHelm', snapshots: {} }]);
    assert.equal(
      (await readFile(files.afterDeleteLog, 'utf8')).trim().split('\n').length,
      2,
      'failed once, then ran',
    );

    await setOperatorConfig(env.api, NAMESPACE, { toggledEnabled: 'true' });
    const status = await eventually(operator, 'toggled installed again', async () => {
      const current = await env.helm.status('toggled', NAMESPACE);
      return current?.status === 'deployed' ? current : undefined;
    });
    assert.equal(status.revision, 1, 'a fresh install after the uninstall');
  });

  it('keeps a failing ModuleRun at the head of main, retried with backoff, while the next task waits', async () => {
    const flakyRevision = (await revision('flaky')) ?? 0;
    const steadyRevision = (await revision('steady')) ?? 0;
    const earlier = (await attempts()).length;
    await writeFile(files.failMarker, 'fail\n');
    await setOperatorConfig(env.api, NAMESPACE, { flaky: 'rev: 1\n' });
    await setOperatorConfig(env.api, NAMESPACE, { steady: 'rev: 1\n' });
    await eventually(operator, 'two failed attempts of flaky', async () =>
      (await attempts()).length >= earlier + 2 ? true : undefined,
    );

    const [head, ...behind] = await mainQueueTasks();
    assert.equal(head?.type, 'ModuleRun');
    assert.match(head.description, /^ModuleRun:main:flaky:/u);
    assert.ok(head.failures >= 1, `failures counted: ${JSON.stringify(head)}`);
    assert.match(head.lastError ?? '', /before-helm/u);
    // The steady edit waits as its ModuleRun, or still as the ApplyKubeConfigValues carrying it
    // when the watch delivered the second edit after the first was applied.
    assert.ok(
      behind.some(
        (task) =>
          (task.type === 'ModuleRun' && task.description.startsWith('ModuleRun:main:steady:')) ||
          task.type === 'ApplyKubeConfigValues',
      ),
      `steady's change waits behind flaky: ${JSON.stringify(behind)}`,
    );
    assert.equal(await revision('steady'), steadyRevision, 'steady is not upgraded while flaky fails');
    assert.equal(await revision('flaky'), flakyRevision);

    await rm(files.failMarker);
    await eventually(operator, 'flaky upgraded', async () =>
      ((await revision('flaky')) ?? 0) > flakyRevision ? true : undefined,
    );
    await eventually(operator, 'steady upgraded', async () =>
      ((await revision('steady')) ?? 0) > steadyRevision ? true : undefined,
    );
    // Their two upgrades may now overlap (docs/lifecycle.md "Overlapping delivery"); what is kept is
    // that steady's run waited behind flaky's failing one, checked above.
    assert.match(await env.helm.getManifest('flaky', NAMESPACE), /rev: "1"/u);
    assert.match(await env.helm.getManifest('steady', NAMESPACE), /rev: "1"/u);

    // docs/lifecycle.md "Tasks and queues": retried after 5 s, then after 10 s (lower bounds: the hook's own
    // run time and the queue's polling only add to them).
    const [first, second, third] = (await attempts()).slice(earlier);
    assert.ok(first !== undefined && second !== undefined && third !== undefined);
    console.log(`# flaky retried ${second - first} ms after the first attempt, then ${third - second} ms`);
    assert.ok(second - first >= 4_500, `second attempt ${second - first} ms after the first`);
    assert.ok(third - second >= 9_500, `third attempt ${third - second} ms after the second`);
  });

  it('fails only the run of a broken module, naming its file; the other modules are still delivered', async () => {
    const flakyRevision = (await revision('flaky')) ?? 0;
    const steadyRevision = (await revision('steady')) ?? 0;
    const kustomization = path.join(env.tree.root, 'modules/020-steady/kustomization.yaml');
    const good = await readFile(kustomization, 'utf8');
    await writeFile(kustomization, good.replace('- state.yaml', '- state.yaml\n- missing.yaml'));
    // One edit, two module runs in module order: flaky's renders the whole tree, steady included
    // (its values changed, so its files are read again), and is delivered all the same.
    await setOperatorConfig(env.api, NAMESPACE, { flaky: 'rev: 2\n', steady: 'rev: 2\n' });
    await eventually(operator, 'flaky upgraded while steady is broken', async () =>
      ((await revision('flaky')) ?? 0) > flakyRevision ? true : undefined,
    );
    const head = await eventually(operator, "steady's run failing at the head of main", async () => {
      const [task] = await mainQueueTasks();
      return task?.description.startsWith('ModuleRun:main:steady:') === true && task.failures > 0
        ? task
        : undefined;
    });
    assert.match(head.lastError ?? '', /missing\.yaml/u, 'the error names the missing file');
    assert.equal(await revision('steady'), steadyRevision, 'the broken module is not delivered');

    await writeFile(kustomization, good);
    await eventually(operator, 'steady upgraded once fixed', async () =>
      ((await revision('steady')) ?? 0) > steadyRevision ? true : undefined,
    );
    assert.match(await env.helm.getManifest('steady', NAMESPACE), /rev: "2"/u);
  });

  it('counts the failures on /metrics with the labels addon-operator documents', async () => {
    const text = await scrapeMetrics(env.port);
    const P = 'addon_operator_';
    const atLeast = (name: string, labels: Record<string, string>, least: number): void => {
      const value = sample(text, `${P}${name}`, labels);
      assert.ok(value !== undefined && value >= least, `${name}${JSON.stringify(labels)} = ${String(value)}`);
    };
    const startup = { hook: 'startup.mjs', binding: 'onStartup', queue: 'main' };
    atLeast('global_hook_run_errors_total', startup, 1);
    atLeast('global_hook_run_success_total', startup, 1);
    atLeast('global_hook_run_seconds_count', startup, 2);
    atLeast('global_hook_run_max_rss_bytes', { hook: 'startup.mjs' }, 1);
    atLeast('global_hook_run_user_cpu_seconds_count', { hook: 'startup.mjs' }, 1);
    atLeast('global_hook_run_sys_cpu_seconds_count', { hook: 'startup.mjs' }, 1);
    atLeast('module_discover_errors_total', {}, 2);
    atLeast('module_run_errors_total', { module: 'flaky' }, 2);
    atLeast('module_run_errors_total', { module: 'steady' }, 1);
    const flaky = { module: 'flaky', hook: 'hooks/before-helm.mjs', binding: 'beforeHelm' };
    atLeast('module_hook_run_errors_total', flaky, 2);
    atLeast('module_hook_run_max_rss_bytes', { module: 'flaky', hook: 'hooks/before-helm.mjs' }, 1);
    atLeast('module_hook_run_user_cpu_seconds_count', { module: 'flaky' }, 1);
    atLeast('module_helm_seconds_count', { module: 'flaky' }, 1);
    atLeast('module_delete_errors_total', { module: 'toggled' }, 1);
    const noisy = { module: 'steady', hook: 'hooks/noisy.mjs', binding: 'every-second', queue: 'noise' };
    atLeast('module_hook_run_allowed_errors_total', noisy, 1);
    assert.equal(sample(text, `${P}module_hook_run_errors_total`, noisy), undefined, 'allowed, not errors');
  });

  it('recovers a release left pending-upgrade by an operator killed mid-upgrade', async () => {
    await setOperatorConfig(env.api, NAMESPACE, { slow: 'blockUpgrade: true\n' });
    const stuck = await eventually(operator, 'slow pending-upgrade', async () => {
      const current = await env.helm.status('slow', NAMESPACE);
      return current?.status === 'pending-upgrade' ? current.revision : undefined;
    });
    await killOperatorTree(operator);
    assert.equal(
      (await env.helm.status('slow', NAMESPACE))?.status,
      'pending-upgrade',
      'still pending after the kill',
    );
    assert.match(await releaseHooks(stuck), /name: slow-pre-upgrade/u, 'the stuck revision waits on the Job');

    await setOperatorConfig(env.api, NAMESPACE, { slow: 'blockUpgrade: false\n' });
    operator = startOperator();
    await waitReady(operator, env.port);
    const status = await eventually(operator, 'slow deployed again', async () => {
      const current = await env.helm.status('slow', NAMESPACE);
      return current?.status === 'deployed' ? current : undefined;
    });
    assert.ok(status.revision > stuck, `revision ${status.revision} after the stuck ${stuck}`);
    assert.match(await env.helm.getManifest('slow', NAMESPACE), /block: "false"/u);
    assert.doesNotMatch(await releaseHooks(), /slow-pre-upgrade/u, 'the hook Job is not in the release');
  });

  it('on SIGTERM lets the running hook go on for the grace period, then ends it and exits 0', async () => {
    await writeFile(files.hangMarker, 'hang\n');
    await setOperatorConfig(env.api, NAMESPACE, { flaky: 'rev: 3\n' });
    const pid = await eventually(operator, 'the hanging beforeHelm hook running', async () => {
      const text = await readFile(files.hookPid, 'utf8').catch(() => '');
      return text === '' ? undefined : Number(text);
    });
    const signalledAt = Date.now();
    operator.process.kill('SIGTERM');
    const result = await operator.process;
    const waited = Date.now() - signalledAt;
    assert.equal(result.exitCode, 0, operator.tail());
    assert.ok(waited >= 9_500, `the hook had its 10 s grace period (exited after ${String(waited)} ms)`);
    assert.match(operator.output(), /ending running hooks/u);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the hook process is gone');
    await rm(files.hangMarker);
  });
});
