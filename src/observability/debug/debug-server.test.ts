import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { stringifyYamlStream } from '../../core/yaml/yaml.ts';
import {
  deployment,
  emptyQueue,
  fakeDebugState,
  queueListText,
  queueListWithEmptyText,
  queueDump,
  snapshots,
} from '../../../test/debug/fake-debug-state.ts';
import { unixGet } from '../../../test/debug/unix-get.ts';
import { serveFakeDebugState } from '../../../test/debug/serve-fake-state.ts';

interface RouteCase {
  readonly path: string;
  readonly data: unknown;
  /** The text form when it is not the YAML one. */
  readonly text?: string;
}

const echoSnapshots = {
  'echo-server/hooks/pods.py': {
    pods: { snapshot: [snapshots[1]?.bindings.pods?.[0]] },
  },
};
const globalSnapshots = { '000-nodes.sh': { nodes: { snapshot: [{ filterResult: 'node-a' }] } } };
const globalSnapshotsText =
  "Hook '000-nodes.sh' (global):\n  binding 'nodes': 1 object\n    filterResult: node-a\n";
const echoSnapshotsText = [
  "Hook 'echo-server/hooks/pods.py' (module 'echo-server'):",
  "  binding 'pods': 1 object",
  '    kaddon/Pod/web-1 filterResult: {"ready":true}',
  '',
].join('\n');

const cases: readonly RouteCase[] = [
  { path: '/', data: 'debug endpoint is alive', text: 'debug endpoint is alive\n' },
  { path: '/queue/list', data: queueDump, text: queueListText },
  {
    path: '/queue/list?showEmpty=true',
    data: { ...queueDump, empty: [emptyQueue] },
    text: queueListWithEmptyText,
  },
  { path: '/queue/main', data: queueDump.active[0], text: "Queue 'main': length 1\n" },
  { path: '/global/list', data: { globalHooks: ['000-nodes.sh', '100-certs.sh'] } },
  {
    path: '/git/status',
    data: { source: 'none' },
    text: 'No Git source: the modules tree is MODULES_DIR.\n',
  },
  { path: '/global/values', data: { clusterName: 'dev', discovery: { nodes: 3 } } },
  {
    path: '/global/values?origin=true',
    data: fakeDebugState().valueOrigins(undefined),
    text: [
      'PATH              VALUE  ORIGIN',
      '/clusterName      "dev"  ConfigMap',
      "/discovery/nodes  3      hook '000-nodes.sh'",
      '',
    ].join('\n'),
  },
  {
    path: '/module/echo-server/values?origin=true',
    data: [{ path: '/replicas', value: 2, origin: "the module's values.yaml" }],
    text: "PATH       VALUE  ORIGIN\n/replicas  2      the module's values.yaml\n",
  },
  { path: '/global/config', data: { clusterName: 'dev' } },
  { path: '/global/patches', data: [{ op: 'add', path: '/discovery/nodes', value: 3 }] },
  {
    path: '/global/snapshots',
    data: globalSnapshots,
    text: globalSnapshotsText,
  },
  {
    path: '/module/list',
    data: {
      enabledModules: ['broken', 'echo-server'],
      modules: fakeDebugState().modules(),
    },
    text: [
      'MODULE        ENABLED  STATE',
      'echo-server   true     Ready',
      'broken        true     Failed: render',
      'cert-manager  false    Disabled',
      '',
    ].join('\n'),
  },
  {
    path: '/module/resource-monitor',
    data: { 'echo-server': ['kaddon/Deployment/web', 'kaddon/Service/web'], broken: 'No monitor' },
    text: 'echo-server:\n  kaddon/Deployment/web\n  kaddon/Service/web\nbroken: No monitor\n',
  },
  {
    path: '/module/cert-manager/resource-monitor',
    data: { 'cert-manager': 'No monitor' },
    text: 'cert-manager: No monitor\n',
  },
  { path: '/module/echo-server/values', data: { replicas: 11 } },
  {
    path: '/module/echo-server/values?global=true',
    data: { global: { clusterName: 'dev', discovery: { nodes: 3 } }, echoServer: { replicas: 11 } },
  },
  { path: '/module/echo-server/config', data: { replicas: 2 } },
  {
    path: '/module/echo-server/config?global=true',
    data: { global: { clusterName: 'dev' }, echoServer: { replicas: 2 } },
  },
  { path: '/module/echo-server/patches', data: [{ op: 'add', path: '/echoServer/replicas', value: 11 }] },
  {
    path: '/module/echo-server/render',
    data: { apiVersion: 'v1', kind: 'List', items: [deployment] },
    text: stringifyYamlStream([deployment]),
  },
  {
    path: '/module/echo-server/snapshots',
    data: echoSnapshots,
    text: echoSnapshotsText,
  },
  {
    path: '/hook/snapshots',
    data: { ...globalSnapshots, ...echoSnapshots },
    text: `${globalSnapshotsText}\n${echoSnapshotsText}`,
  },
  {
    path: `/hook/${encodeURIComponent('echo-server/hooks/pods.py')}/snapshots`,
    data: echoSnapshots,
    text: echoSnapshotsText,
  },
];

function withFormat(route: string, format: string): string {
  return `${route}${route.includes('?') ? '&' : '?'}format=${format}`;
}

describe('debug server routes', () => {
  const socketPath = serveFakeDebugState('debug-routes');

  for (const { path: route, data, text } of cases) {
    it(`GET ${route} answers in json, yaml and text`, async () => {
      const json = await unixGet(socketPath(), withFormat(route, 'json'));
      assert.equal(json.status, 200, json.body);
      assert.equal(json.contentType, 'application/json');
      assert.deepEqual(JSON.parse(json.body), JSON.parse(JSON.stringify(data)));
      const yaml = await unixGet(socketPath(), withFormat(route, 'yaml'));
      assert.equal(yaml.status, 200, yaml.body);
      assert.deepEqual(parseYaml(yaml.body), JSON.parse(JSON.stringify(data)));
      const plain = await unixGet(socketPath(), withFormat(route, 'text'));
      assert.equal(plain.status, 200, plain.body);
      assert.equal(plain.body, text ?? yaml.body);
    });
  }

  it('takes the format from the path extension too, and text without either', async () => {
    const json = await unixGet(socketPath(), '/global/config.json');
    assert.equal(json.body, '{"clusterName":"dev"}\n');
    assert.equal((await unixGet(socketPath(), '/global/config')).body, 'clusterName: dev\n');
  });

  it('lists its routes on /discovery', async () => {
    const { body } = await unixGet(socketPath(), '/discovery');
    assert.match(body, /^GET \/module\/\{module\}\/render$/mu);
    assert.match(body, /^GET \/hook\/\{hook\}\/snapshots$/mu);
  });

  it('answers 404 with the module name for an unknown module', async () => {
    for (const route of ['values', 'config', 'patches', 'render', 'resource-monitor', 'snapshots']) {
      const response = await unixGet(socketPath(), `/module/nope/${route}?format=json`);
      assert.equal(response.status, 404);
      assert.match(response.body, /^module 'nope': not found\. Run `kaddon module list`\.\n$/u);
    }
  });

  it('answers 404 for an unknown hook and an unknown route', async () => {
    const hook = await unixGet(socketPath(), '/hook/nope.sh/snapshots');
    assert.equal(hook.status, 404);
    assert.match(hook.body, /hook 'nope\.sh': not found/u);
    const route = await unixGet(socketPath(), '/metrics');
    assert.equal(route.status, 404);
    assert.match(route.body, /debug route '\/metrics': not found\. GET \/discovery lists the routes\./u);
  });

  it('answers 400 for an unknown format or a bad boolean', async () => {
    const format = await unixGet(socketPath(), '/global/values?format=xml');
    assert.equal(format.status, 400);
    assert.match(format.body, /format 'xml': not a debug output format\. Use one of text, yaml, json\./u);
    const flag = await unixGet(socketPath(), '/queue/list?showEmpty=maybe');
    assert.equal(flag.status, 400);
    assert.match(flag.body, /query parameter 'showEmpty': 'maybe' is not a boolean/u);
  });

  it("answers 500 with the module's render error", async () => {
    const response = await unixGet(socketPath(), '/module/broken/render');
    assert.equal(response.status, 500);
    assert.match(
      response.body,
      /module 'broken': kustomization\.yaml: patch target Deployment\/web not found/u,
    );
  });

  it('is read-only', async () => {
    assert.equal((await unixGet(socketPath(), '/global/values', 'POST')).status, 405);
  });
});
