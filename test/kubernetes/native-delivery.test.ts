import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scalarText, type JsonObject } from '../../src/core/json.ts';
import { stringifyYamlStream } from '../../src/core/yaml/yaml.ts';
import { getLive, objectTarget } from '../../src/delivery/drift/release-objects.ts';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import { manifestObjects } from '../../src/delivery/native/release-manifest.ts';
import { ReleaseEngine, type DeliveryEngine } from '../../src/delivery/native/release-engine.ts';
import { withStatus } from '../../src/delivery/native/release-record.ts';
import { ReleaseRecords } from '../../src/delivery/native/release-records.ts';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';
import {
  comparable,
  configMaps,
  exists,
  helmHistory,
  helmPath,
  liveConfigMaps,
  RELEASE_NS,
  side,
  startSides,
  stopSides,
} from './native-equivalence-kit.ts';

/**
 * The native engine against the real helm 4 binary (docs/delivery.md): the example platform
 * delivered by each engine on a cluster of its own gives the same objects, release history,
 * manifests and values; helm takes over releases the native engine wrote, and back.
 */

/** An example modules tree and the modules whose slices it delivers. */
interface ExampleTree {
  readonly dir: string;
  readonly modules: readonly string[];
  /** Options of `kaddon build` (chart modules are rendered by `helm template`). */
  readonly buildArgs?: () => readonly string[];
}
const platformTree: ExampleTree = {
  dir: path.join(repoRoot, 'examples/platform/modules'),
  modules: ['echo-server', 'redis', 'prometheus', 'nightly-report', 'greeter', 'platform-policy'],
};
const MODULES = platformTree.modules;
/** addon-operator's chart modules: one with its own Chart.yaml, one without, and a Component after them. */
const chartTree: ExampleTree = {
  dir: path.join(repoRoot, 'examples/chart-module/modules'),
  modules: ['web', 'hello'],
  buildArgs: () => ['--helm-path', helmPath(), '--namespace', 'charts'],
};
let tmp: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'kaddon-native-'));
  await startSides();
});
after(async () => {
  await stopSides();
  await rm(tmp, { recursive: true, force: true });
});

/** Each module's slice as the operator hands it to delivery, from `kaddon build --module`. */
async function treeSlices(tree: ExampleTree, values?: JsonObject): Promise<Map<string, string>> {
  const extra: string[] = [...(tree.buildArgs?.() ?? [])];
  if (values !== undefined) {
    const file = path.join(tmp, `values-${String(Date.now())}.json`);
    await writeFile(file, JSON.stringify(values));
    extra.push('--values', file);
  }
  const slices = new Map<string, string>();
  for (const module of tree.modules) {
    const run = await runCli(['build', tree.dir, '--module', module, '-o', 'json', ...extra]);
    assert.equal(run.code, 0, run.stderr);
    const list = JSON.parse(run.stdout) as { items: JsonObject[] };
    slices.set(module, stringifyYamlStream(list.items));
  }
  return slices;
}

const platformSlices = (values?: JsonObject): Promise<Map<string, string>> =>
  treeSlices(platformTree, values);

async function deliverAll(engine: DeliveryEngine, slices: ReadonlyMap<string, string>): Promise<string[]> {
  const outcomes: string[] = [];
  for (const [module, manifest] of slices) {
    const result = await deliverModule(
      { module, namespace: RELEASE_NS, manifest },
      { helm: side(engine).engine, timeoutSeconds: 60 },
    );
    outcomes.push(`${module}:${result.outcome}`);
  }
  return outcomes;
}

/** What a user sees of every release of the tree: objects, history, manifest and values. */
async function releaseView(
  engine: DeliveryEngine,
  modules: readonly string[] = MODULES,
): Promise<JsonObject> {
  const { helm, api } = side(engine);
  const view: JsonObject = {};
  for (const module of modules) {
    const manifest = await helm.getManifest(module, RELEASE_NS);
    const objects: JsonObject[] = [];
    for (const object of manifestObjects(manifest, module)) {
      const target = await objectTarget(api, object, RELEASE_NS);
      assert.ok(target, `${module}: ${scalarText(object.kind)} is served`);
      const live = await getLive(api, target);
      assert.ok(live, `${module}: ${target.label} exists`);
      objects.push(comparable(live));
    }
    view[module] = {
      history: await helmHistory(engine, module),
      manifest,
      values: await helm.getValues(module, RELEASE_NS),
      objects,
    };
  }
  return view;
}

describe('native delivery against the real helm 4 binary', () => {
  it('delivers the example platform as helm does: objects, history, manifest and values', async () => {
    const first = await platformSlices();
    const second = await platformSlices({ echoServer: { greeting: 'changed', highAvailability: false } });
    for (const engine of ['helm', 'native'] as const) {
      assert.deepEqual(
        await deliverAll(engine, first),
        MODULES.map((module) => `${module}:installed`),
      );
      const again = await deliverAll(engine, second);
      assert.deepEqual(
        again,
        MODULES.map((module) => `${module}:${module === 'echo-server' ? 'upgraded' : 'unchanged'}`),
      );
    }
    const [helmView, nativeView] = [await releaseView('helm'), await releaseView('native')];
    assert.deepEqual(nativeView, helmView);
    // The upgrade's renamed ConfigMap (a new hash suffix) is gone with both engines.
    const echo = nativeView['echo-server'] as { objects: JsonObject[] };
    assert.equal(echo.objects.filter((object) => object.kind === 'ConfigMap').length, 1);
    const firstConfigMap = manifestObjects(first.get('echo-server') ?? '', 'echo').find(
      (o) => o.kind === 'ConfigMap',
    );
    const name = scalarText((firstConfigMap?.metadata as JsonObject).name);
    for (const engine of ['helm', 'native'] as const)
      assert.equal(await exists(engine, `/api/v1/namespaces/echo/configmaps/${name}`), false);
  });

  it("delivers addon-operator's chart modules as helm does, chart output composed with a Component", async () => {
    const first = await treeSlices(chartTree);
    const second = await treeSlices(chartTree, { web: { replicas: 3 } });
    assert.match(
      first.get('web') ?? '',
      /example\.com\/team: platform/u,
      'the Component labelled the chart output',
    );
    for (const engine of ['helm', 'native'] as const) {
      await side(engine).api.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'charts' } },
      });
      assert.deepEqual(await deliverAll(engine, first), ['web:installed', 'hello:installed']);
      assert.deepEqual(await deliverAll(engine, second), ['web:upgraded', 'hello:unchanged']);
    }
    assert.deepEqual(
      await releaseView('native', chartTree.modules),
      await releaseView('helm', chartTree.modules),
    );
  });

  it('hands a release written natively to helm: upgraded, rolled back and uninstalled by the binary', async () => {
    const { helm, engine: native, api } = side('native');
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'handover' } },
    });
    const deliver = (manifest: string) =>
      deliverModule(
        { module: 'handover', namespace: 'handover', manifest },
        { helm: native, timeoutSeconds: 60 },
      );
    await deliver(configMaps('handover', ['a']));
    await deliverModule(
      { module: 'handover', namespace: 'handover', manifest: configMaps('handover', ['b']) },
      { helm, timeoutSeconds: 60 },
    );
    assert.deepEqual(await liveConfigMaps('handover'), ['b']);
    await helm.rollback('handover', 'handover', 1);
    assert.deepEqual(await liveConfigMaps('handover'), ['a']);
    assert.deepEqual(
      (await helmHistory('native', 'handover', 'handover')).map((row) => [row.status, row.description]),
      [
        ['superseded', 'Install complete'],
        ['superseded', 'Upgrade complete'],
        ['deployed', 'Rollback to 1'],
      ],
    );
    // And back: the native engine upgrades what helm rolled back.
    assert.equal((await deliver(configMaps('handover', ['c']))).outcome, 'upgraded');
    assert.deepEqual(await liveConfigMaps('handover'), ['c']);
    await helm.uninstall('handover', 'handover');
    assert.deepEqual(await liveConfigMaps('handover'), []);
    assert.deepEqual(await native.list('handover'), []);
  });

  it('upgrades, rolls back and uninstalls a release helm wrote, keeping what resource-policy keep marks', async () => {
    const { helm, engine: native, api } = side('helm');
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'takeover' } },
    });
    const kept = configMaps('takeover', ['kept']).replace(
      'metadata:\n',
      'metadata:\n  annotations:\n    helm.sh/resource-policy: keep\n',
    );
    await deliverModule(
      { module: 'takeover', namespace: 'takeover', manifest: `${kept}---\n${configMaps('takeover', ['a'])}` },
      { helm, timeoutSeconds: 60 },
    );
    const nativeEngine = new ReleaseEngine({ engine: 'native', api, helm });
    const deliver = (manifest: string) =>
      deliverModule(
        { module: 'takeover', namespace: 'takeover', manifest },
        { helm: nativeEngine, timeoutSeconds: 60 },
      );
    assert.equal((await deliver(configMaps('takeover', ['b']))).outcome, 'upgraded');
    assert.deepEqual(await liveConfigMaps('takeover'), ['b', 'kept']);
    assert.equal((await native.status('takeover', 'takeover'))?.status, 'deployed');
    await nativeEngine.rollback('takeover', 'takeover', 1);
    assert.deepEqual(await liveConfigMaps('takeover'), ['a', 'kept']);
    assert.deepEqual(
      (await helmHistory('helm', 'takeover', 'takeover')).map((row) => [
        row.revision,
        row.status,
        row.description,
      ]),
      [
        [1, 'superseded', 'Install complete'],
        [2, 'superseded', 'Upgrade complete'],
        [3, 'deployed', 'Rollback to 1'],
      ],
    );
    assert.match(await helm.getManifest('takeover', 'takeover'), /name: a\n/);
    await nativeEngine.uninstall('takeover', 'takeover');
    assert.deepEqual(await liveConfigMaps('takeover'), ['kept']);
    assert.equal(await helm.status('takeover', 'takeover'), undefined);
  });

  it("takes over objects addon-operator's helm wrote by client-side apply, and changes them", async () => {
    // addon-operator's helm 3 library applies client-side as field manager `helm` (an Update entry
    // in managedFields); a server-side apply as `helm` that changes such a field conflicts with it
    // unless the ownership is moved into the Apply entry first, as helm 4 does (docs/delivery.md).
    const { api } = side('native');
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'csa' } },
    });
    const chart = path.join(tmp, 'csa-chart');
    await mkdir(path.join(chart, 'templates'), { recursive: true });
    await writeFile(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: csa\nversion: 0.2.0\n');
    await writeFile(path.join(chart, 'templates', 'cm.yaml'), configMaps('csa', ['settings', 'gone']));
    await execa(helmPath(), ['upgrade', '--install', 'csa', chart, '-n', 'csa', '--server-side=false'], {
      env: { KUBECONFIG: side('native').cluster.kubeconfigPath, HELM_NO_PLUGINS: '1' },
    });
    const managers = async (): Promise<string[]> => {
      const live = await api.request('GET', '/api/v1/namespaces/csa/configmaps/settings');
      const entries = (live.metadata as JsonObject).managedFields as JsonObject[];
      return entries.map((entry) => `${scalarText(entry.manager)}/${scalarText(entry.operation)}`);
    };
    assert.deepEqual(await managers(), ['helm/Update']);

    const result = await deliverModule(
      { module: 'csa', namespace: 'csa', manifest: configMaps('csa', ['settings', 'added'], '2') },
      { helm: side('native').engine, timeoutSeconds: 60 },
    );
    assert.equal(result.outcome, 'upgraded');
    const settings = await api.request('GET', '/api/v1/namespaces/csa/configmaps/settings');
    assert.deepEqual(settings.data, { x: '2' });
    assert.deepEqual(await managers(), ['helm/Apply']);
    assert.equal(await exists('native', '/api/v1/namespaces/csa/configmaps/gone'), false);
    assert.deepEqual(
      (await helmHistory('native', 'csa', 'csa')).map((row) => [row.revision, row.status]),
      [
        [1, 'superseded'],
        [2, 'deployed'],
      ],
    );
    // Further edits need no more moving: the release is recorded as server-side applied.
    const again = await deliverModule(
      { module: 'csa', namespace: 'csa', manifest: configMaps('csa', ['settings', 'added'], '3') },
      { helm: side('native').engine, timeoutSeconds: 60 },
    );
    assert.equal(again.outcome, 'upgraded');
    assert.deepEqual((await api.request('GET', '/api/v1/namespaces/csa/configmaps/settings')).data, {
      x: '3',
    });
  });

  it('records a failed upgrade as helm does and goes on from it', async () => {
    const { api, engine: native } = side('native');
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'conflict' } },
    });
    const deliver = (manifest: string) =>
      deliverModule(
        { module: 'conflict', namespace: 'conflict', manifest },
        { helm: native, timeoutSeconds: 60 },
      );
    await deliver(configMaps('conflict', ['a']));
    // Another field manager owns data.x: helm's server-side apply does not force, so the upgrade fails.
    await api.request('PATCH', '/api/v1/namespaces/conflict/configmaps/a', {
      query: { fieldManager: 'other', force: true },
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: 'theirs' } },
      contentType: 'application/apply-patch+yaml',
    });
    await assert.rejects(deliver(configMaps('conflict', ['a'], 'ours')), /conflict/);
    const history = await helmHistory('native', 'conflict', 'conflict');
    assert.deepEqual(
      history.map((row) => row.status),
      ['deployed', 'failed'],
    );
    assert.match(scalarText(history[1]?.description), /^Upgrade "conflict" failed: .*conflict/);
    // The next delivery goes on from the failed revision, as helm's does.
    assert.equal((await deliver(configMaps('conflict', ['b']))).outcome, 'upgraded');
    assert.deepEqual(
      (await helmHistory('native', 'conflict', 'conflict')).map((row) => row.status),
      ['superseded', 'failed', 'deployed'],
    );
  });

  it('recovers a revision a crash left pending-upgrade, and records a stop mid-delivery as failed', async () => {
    const { api, engine: native } = side('native');
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crash' } },
    });
    const deliver = (manifest: string, helm = native) =>
      deliverModule({ module: 'crash', namespace: 'crash', manifest }, { helm, timeoutSeconds: 60 });
    await deliver(configMaps('crash', ['a']));
    // What an operator killed between writing the pending revision and recording the outcome leaves.
    const records = new ReleaseRecords(api);
    const [first] = await records.history('crash', 'crash');
    assert.ok(first);
    await records.create(
      { ...withStatus(first, 'pending-upgrade', 'Preparing upgrade'), version: 2 },
      new Date(),
    );
    const result = await deliver(configMaps('crash', ['b']));
    assert.equal(result.outcome, 'recovered');
    assert.deepEqual(result.recovery, { action: 'rollback', from: 'pending-upgrade', toRevision: 1 });
    assert.deepEqual(
      (await helmHistory('native', 'crash', 'crash')).map((row) => [row.status, row.description]),
      [
        ['superseded', 'Install complete'],
        // helm's rollback leaves the revision it rolls back from as it was (docs/delivery.md).
        ['pending-upgrade', 'Preparing upgrade'],
        ['superseded', 'Rollback to 1'],
        ['deployed', 'Upgrade complete'],
      ],
    );
    assert.deepEqual(await liveConfigMaps('crash'), ['b']);

    // SIGTERM: the engine's stop signal is aborted; nothing more is applied, the revision is failed.
    const stop = new AbortController();
    stop.abort();
    const stopping = new ReleaseEngine({
      engine: 'native',
      api,
      helm: side('native').helm,
      stopSignal: stop.signal,
    });
    await assert.rejects(deliver(configMaps('crash', ['c']), stopping), /kaddon is stopping/);
    const history = await helmHistory('native', 'crash', 'crash');
    assert.equal(history.at(-1)?.status, 'failed');
    assert.deepEqual(await liveConfigMaps('crash'), ['b']);
    assert.equal((await deliver(configMaps('crash', ['c']))).outcome, 'upgraded');
    assert.deepEqual(await liveConfigMaps('crash'), ['c']);
  });
});
