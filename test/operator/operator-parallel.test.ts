import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import { moduleValuesKey } from '../../src/core/module-name.ts';
import { runCli } from '../run-cli.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-parallel';
const POLICY_LABEL = 'policy.example.com/checked';
let env: OperatorEnvironment;
let operator: E2eOperator | undefined;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-parallel' });
});
after(() => env.stop());

/** A shell hook that runs at beforeHelm; `body` is its script after the config answer. */
function beforeHelmHook(body: string): string {
  return `#!/usr/bin/env bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","beforeHelm":10}'; exit 0; fi
${body}
`;
}

/** Waits up to two minutes for a file, then fails: a hook that is never let go fails in the end. */
function waitForFile(file: string): string {
  return `for i in $(seq 1 600); do [ -e ${file} ] && break; sleep 0.2; done; [ -e ${file} ] || exit 1`;
}

/** The ConfigMaps `<module>-state` in the namespace, by module, with their labels. */
async function stateConfigMaps(): Promise<Map<string, Record<string, unknown>>> {
  const list = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`);
  const found = new Map<string, Record<string, unknown>>();
  for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
    const metadata = isJsonObject(item.metadata) ? item.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    if (name.endsWith('-state'))
      found.set(name.slice(0, -'-state'.length), isJsonObject(metadata.labels) ? metadata.labels : {});
  }
  return found;
}

async function writeModules(
  dir: string,
  modules: Readonly<Record<string, Record<string, string>>>,
): Promise<void> {
  // Every module enabled (docs/values.md): `<valuesKey>Enabled: true` in the tree's values.yaml.
  const enabled = Object.keys(modules).map(
    (module) => `${moduleValuesKey(module.replace(/^\d+-/u, ''))}Enabled: true\n`,
  );
  const files: Record<string, string> = { [`${dir}/values.yaml`]: enabled.join('') };
  for (const [module, moduleFiles] of Object.entries(modules))
    for (const [file, text] of Object.entries(moduleFiles)) files[`${dir}/${module}/${file}`] = text;
  env.tree.write('', files);
  for (const file of Object.keys(files))
    if (file.endsWith('.sh')) await chmod(path.join(env.tree.root, file), 0o755);
}

/**
 * docs/lifecycle.md "Parallel module runs", seen from outside, with KADDON_CONCURRENT_MODULE_RUNS=4:
 * `ping` and `pong` each wait in beforeHelm for a file the other one's hook writes, so both are
 * delivered only if their runs overlap. `gate` waits in beforeHelm until the test lets it go;
 * `needs-gate` requires it (module.yaml); `policy` is a Component module that labels every
 * ConfigMap before it with a value its own hook computes; `free` and `late` have no hooks.
 */
describe('independent modules run in parallel (KADDON_CONCURRENT_MODULE_RUNS)', () => {
  let log: string;
  let openGate: string;

  before(async () => {
    const root = env.tree.root;
    log = path.join(root, 'parallel.log');
    openGate = path.join(root, 'open-gate');
    const state = (module: string): Record<string, string> =>
      stateModuleFiles(NAMESPACE, module, '  a: "1"\n');
    await writeModules('parallel', {
      '010-gate': {
        ...state('gate'),
        'hooks/wait.sh': beforeHelmHook(`echo "gate before" >> ${log}\n${waitForFile(openGate)}`),
      },
      '020-needs-gate': {
        ...state('needs-gate'),
        'module.yaml': 'requirements:\n  modules:\n    gate: "*"\n',
        'hooks/log.sh': beforeHelmHook(`echo "needs-gate before" >> ${log}`),
      },
      '030-free': state('free'),
      '040-ping': {
        ...state('ping'),
        'hooks/meet.sh': beforeHelmHook(`touch ${root}/ping-here\n${waitForFile(`${root}/pong-here`)}`),
      },
      '050-pong': {
        ...state('pong'),
        'hooks/meet.sh': beforeHelmHook(`touch ${root}/pong-here\n${waitForFile(`${root}/ping-here`)}`),
      },
      '900-policy': {
        'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels:
- pairs:
    ${POLICY_LABEL}: $(policy.mark)
`,
        'values.yaml': 'policy:\n  mark: default\n',
        'hooks/mark.sh': beforeHelmHook(
          `echo "policy before" >> ${log}\necho '[{"op":"add","path":"/policy/mark","value":"by-hook"}]' > "$VALUES_JSON_PATCH_PATH"`,
        ),
      },
      '950-late': state('late'),
    });
    await writeFile(log, '');
    operator = env.startOperator({
      modulesDir: path.join(root, 'parallel'),
      forceKillAfterDelay: 30_000,
      extraEnv: { KADDON_CONCURRENT_MODULE_RUNS: '4' },
    });
  });

  it('delivers ping and pong, whose hooks wait for each other, and the modules that wait for nothing', async () => {
    const current = operator;
    assert.ok(current);
    await eventually(current, 'free, ping, pong and late delivered', async () => {
      const delivered = await stateConfigMaps();
      return ['free', 'ping', 'pong', 'late'].every((module) => delivered.has(module))
        ? delivered
        : undefined;
    });
  });

  it('holds the module that requires gate, and the Component module after gate, while gate runs', async () => {
    const delivered = await stateConfigMaps();
    for (const module of ['gate', 'needs-gate']) assert.equal(delivered.has(module), false, module);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    assert.deepEqual(lines, ['gate before']);
  });

  it('shows in `queue list` the run of gate and how long it has run, and the Component module waiting for it', async () => {
    const socket = ['--debug-unix-socket', path.join(env.tree.root, 'debug.socket')];
    const text = await runCli(['queue', 'list', ...socket]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Module runs in the pool: \d of 4/);
    assert.match(text.stdout, /\. ModuleRun:gate: running for \d+(\.\d)?s/);
    assert.match(text.stdout, /\. ModuleRun:policy: waiting \d+(\.\d)?s for the runs of [a-z-, ]*gate/);
    const json = await runCli(['queue', 'list', '-o', 'json', ...socket]);
    const dump = JSON.parse(json.stdout) as {
      moduleRuns: { limit: number; runs: { module: string; state: string }[] };
    };
    assert.equal(dump.moduleRuns.limit, 4);
    assert.deepEqual(
      dump.moduleRuns.runs.filter((run) => run.module === 'gate').map((run) => run.state),
      ['running'],
    );
  });

  it('runs them once gate is delivered, and the policy label reaches every module before the policy', async () => {
    const current = operator;
    assert.ok(current);
    await writeFile(openGate, '');
    await waitReady(current, env.port);
    const labelled = await eventually(
      current,
      'every module before the policy labelled by-hook',
      async () => {
        const delivered = await stateConfigMaps();
        const before = ['gate', 'needs-gate', 'free', 'ping', 'pong'];
        return before.every((module) => delivered.get(module)?.[POLICY_LABEL] === 'by-hook')
          ? delivered
          : undefined;
      },
    );
    assert.equal(
      labelled.get('late')?.[POLICY_LABEL],
      undefined,
      'a module after the Component is not its to change',
    );
    // gate runs again when the policy's hook changes its slice: only the first lines are in order.
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    assert.equal(lines[0], 'gate before');
    assert.ok(lines.indexOf('needs-gate before') > 0, lines.join());
    assert.ok(lines.indexOf('policy before') > 0, lines.join());
  });

  after(async () => {
    operator?.process.kill('SIGTERM');
    await operator?.process;
    operator = undefined;
  });
});

/**
 * KADDON_MODULE_FAILURE_POLICY=block keeps addon-operator's head-of-line retry whatever
 * KADDON_CONCURRENT_MODULE_RUNS says: `b1` fails in beforeHelm until fixed and nothing behind it
 * runs. Then SIGTERM while `b3`'s helm hangs: the helm process is ended and the operator exits.
 */
describe('block policy and SIGTERM with parallel runs allowed', () => {
  let attempts: string;
  let fixed: string;
  let hang: string;
  let helmPid: string;

  before(async () => {
    const root = env.tree.root;
    attempts = path.join(root, 'b1-attempts.log');
    fixed = path.join(root, 'b1-fixed');
    hang = path.join(root, 'hang-b3');
    helmPid = path.join(root, 'b3-helm.pid');
    const state = (module: string): Record<string, string> =>
      stateModuleFiles(NAMESPACE, module, '  a: "1"\n');
    await writeModules('block', {
      '010-b1': {
        ...state('b1'),
        'hooks/check.sh': beforeHelmHook(
          `echo attempt >> ${attempts}\n[ -e ${fixed} ] || { echo "b1: not fixed" >&2; exit 1; }`,
        ),
      },
      '020-b2': state('b2'),
      '030-b3': {
        ...stateModuleFiles(NAMESPACE, 'b3', '  rev: "$(b3.rev)"\n'),
        'values.yaml': 'b3:\n  rev: 1\n',
      },
    });
    env.tree.write('', {
      'helm-wrapper.sh': `#!/usr/bin/env bash
if [ "$1" = "upgrade" ] && [ "$3" = "b3" ] && [ -e ${hang} ]; then echo $$ > ${helmPid}; exec sleep 600; fi
exec "${env.helmPath}" "$@"
`,
    });
    await chmod(path.join(root, 'helm-wrapper.sh'), 0o755);
    operator = env.startOperator({
      modulesDir: path.join(root, 'block'),
      forceKillAfterDelay: 40_000,
      extraEnv: {
        KADDON_MODULE_FAILURE_POLICY: 'block',
        KADDON_CONCURRENT_MODULE_RUNS: '4',
        // The wrapper watches the helm binary's upgrades: the helm engine, not the default native one.
        KADDON_DELIVERY: 'helm',
        HELM_BIN_PATH: path.join(root, 'helm-wrapper.sh'),
        KADDON_HELM_PATH: '',
      },
    });
  });

  it('retries b1 at the head of the queue and runs nothing behind it until b1 is fixed', async () => {
    const current = operator;
    assert.ok(current);
    await eventually(current, 'b1 tried twice', async () => {
      const text = await readFile(attempts, 'utf8').catch(() => '');
      return text.split('\n').filter(Boolean).length >= 2 ? true : undefined;
    });
    const delivered = await stateConfigMaps();
    for (const module of ['b1', 'b2', 'b3']) assert.equal(delivered.has(module), false, module);
    await writeFile(fixed, '');
    await waitReady(current, env.port);
    const after = await stateConfigMaps();
    for (const module of ['b1', 'b2', 'b3']) assert.equal(after.has(module), true, module);
  });

  it('on SIGTERM ends the hanging helm and exits 0', async () => {
    const current = operator;
    assert.ok(current);
    await writeFile(hang, '');
    await setOperatorConfig(env.api, NAMESPACE, { b3: 'rev: 2\n' });
    const pid = await eventually(current, "b3's helm upgrade hanging", async () => {
      const text = await readFile(helmPid, 'utf8').catch(() => '');
      return text.trim() === '' ? undefined : Number(text);
    });
    current.process.kill('SIGTERM');
    const result = await current.process;
    operator = undefined;
    assert.equal(result.exitCode, 0, current.tail());
    assert.match(current.output(), /ending running hooks and helm/u);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the helm process is gone');
  });
});
