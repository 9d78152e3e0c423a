import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { stringifyYamlStream } from '../../src/core/yaml/yaml.ts';
import { formatQueueDump } from '../../src/runtime/queue/queue-dump.ts';
import { runCli } from '../run-cli.ts';
import { deployment, emptyQueue, NOW, queueDump } from './fake-debug-state.ts';
import { serveFakeDebugState } from './serve-fake-state.ts';
import { makeTempTree } from '../temp-tree.ts';

describe('kaddon debug commands against a running debug server', () => {
  const socketPath = serveFakeDebugState('debug-cli');
  const kaddon = (...argv: string[]) => runCli([...argv, '--debug-unix-socket', socketPath()]);

  it('queue list prints the queue dump as text, and JSON with -o json; -e adds empty queues', async () => {
    assert.deepEqual(await kaddon('queue', 'list'), {
      code: 0,
      stdout: formatQueueDump(queueDump, NOW),
      stderr: '',
    });
    const json = await kaddon('queue', 'list', '-o', 'json', '--show-empty');
    assert.deepEqual(JSON.parse(json.stdout), { ...queueDump, empty: [emptyQueue] });
  });

  it('global values|patches|config print each as YAML, or JSON with -o json', async () => {
    assert.equal((await kaddon('global', 'values')).stdout, 'clusterName: dev\ndiscovery:\n  nodes: 3\n');
    assert.deepEqual(JSON.parse((await kaddon('global', 'patches', '-o', 'json')).stdout), [
      { op: 'add', path: '/discovery/nodes', value: 3 },
    ]);
    assert.deepEqual(parseYaml((await kaddon('global', 'config', '-o', 'yaml')).stdout), {
      clusterName: 'dev',
    });
  });

  it('module list shows every module with its enabled status and state', async () => {
    const { code, stdout } = await kaddon('module', 'list');
    assert.equal(code, 0);
    assert.match(stdout, /^cert-manager {2}false {4}Disabled$/mu);
    const json = JSON.parse((await kaddon('module', 'list', '-o', 'json')).stdout) as {
      enabledModules: string[];
    };
    assert.deepEqual(json.enabledModules, ['broken', 'echo-server']);
  });

  it('module values|config NAME, with -g adding the global section', async () => {
    assert.equal((await kaddon('module', 'values', 'echo-server')).stdout, 'replicas: 11\n');
    const withGlobal = await kaddon('module', 'config', 'echo-server', '-g', '-o', 'json');
    assert.deepEqual(JSON.parse(withGlobal.stdout), {
      global: { clusterName: 'dev' },
      echoServer: { replicas: 2 },
    });
    assert.match((await kaddon('module', 'patches', 'echo-server')).stdout, /path: \/echoServer\/replicas/u);
  });

  it('module resource-monitor [NAME] and module render NAME', async () => {
    assert.equal(
      (await kaddon('module', 'resource-monitor')).stdout,
      'echo-server:\n  kaddon/Deployment/web\n  kaddon/Service/web\nbroken: No monitor\n',
    );
    assert.equal((await kaddon('module', 'resource-monitor', 'broken')).stdout, 'broken: No monitor\n');
    assert.equal((await kaddon('module', 'render', 'echo-server')).stdout, stringifyYamlStream([deployment]));
  });

  it('module diff NAME prints the diff as kaddon diff does, text or JSON', async () => {
    const text = (await kaddon('module', 'diff', 'echo-server')).stdout;
    assert.match(
      text,
      /^module echo-server: would be upgraded\n~ ConfigMap kaddon\/settings would be changed\n/u,
    );
    assert.match(text, /^ {4}- {2}color: blue\n {4}\+ {2}color: green$/mu);
    const json = JSON.parse((await kaddon('module', 'diff', 'echo-server', '-o', 'json')).stdout) as {
      changed: boolean;
      modules: { module: string; changes: { action: string; name: string }[] }[];
    };
    assert.equal(json.changed, true);
    assert.deepEqual(
      json.modules[0]?.changes.map((change) => `${change.action} ${change.name}`),
      ['update settings'],
    );
  });

  it('hook snapshots [NAME] prints each hook per binding', async () => {
    const all = await kaddon('hook', 'snapshots');
    assert.match(all.stdout, /^Hook '000-nodes\.sh' \(global\):\n {2}binding 'nodes': 1 object$/mu);
    const one = await kaddon('hook', 'snapshots', 'echo-server/hooks/pods.py', '-o', 'json');
    assert.deepEqual(Object.keys(JSON.parse(one.stdout) as object), ['echo-server/hooks/pods.py']);
  });

  it('an unknown module exits 1 with the server message', async () => {
    assert.deepEqual(await kaddon('module', 'values', 'nope'), {
      code: 1,
      stdout: '',
      stderr: "Error: module 'nope': not found. Run `kaddon module list`.\n",
    });
  });

  it('a render error exits 1 with the module error', async () => {
    const { code, stderr } = await kaddon('module', 'render', 'broken');
    assert.equal(code, 1);
    assert.match(stderr, /^Error: module 'broken': kustomization\.yaml: patch target/u);
  });

  it('a wrong command line exits 2 with the usage', async () => {
    for (const argv of [
      ['module', 'values'],
      ['module', 'frobnicate'],
      ['queue'],
      ['global', 'values', '-o', 'xml'],
      ['global', 'values', 'extra'],
    ]) {
      const { code, stderr } = await kaddon(...argv);
      assert.equal(code, 2, argv.join(' '));
      assert.match(stderr, /Usage: kaddon /u);
    }
  });

  it('the socket comes from DEBUG_UNIX_SOCKET without the flag', async () => {
    const saved = process.env.DEBUG_UNIX_SOCKET;
    process.env.DEBUG_UNIX_SOCKET = socketPath();
    try {
      assert.equal((await runCli(['global', 'config'])).stdout, 'clusterName: dev\n');
    } finally {
      if (saved === undefined) delete process.env.DEBUG_UNIX_SOCKET;
      else process.env.DEBUG_UNIX_SOCKET = saved;
    }
  });
});

describe('kaddon debug commands without a running kaddon', () => {
  it('a missing socket exits 1 and says kaddon is not running there', async () => {
    const tree = makeTempTree('debug-cli-missing');
    const missing = path.join(tree.root, 'gone.socket');
    const { code, stdout, stderr } = await runCli(['queue', 'list', '--debug-unix-socket', missing]);
    tree.remove();
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      `Error: debug socket '${missing}': kaddon is not running here, or DEBUG_UNIX_SOCKET points elsewhere: ` +
        `connect ENOENT ${missing}. Start kaddon, or pass --debug-unix-socket with the path it listens on.\n`,
    );
  });
});
