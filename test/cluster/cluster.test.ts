import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { requestApi } from './api-request.ts';
import { ensureClusterBinaries, type ClusterBinaries } from './cluster-binaries.ts';
import { isUnobtainable } from './cluster-error.ts';
import { ensureHelm, type HelmBinaries } from './ensure-helm.ts';
import { pinnedVersions } from './pinned-versions.ts';
import { isAlive } from './server-process.ts';
import { startTestCluster, type TestCluster } from './test-cluster.ts';

const run = promisify(execFile);

interface ServerVersion {
  readonly serverVersion: { readonly gitVersion: string };
}

/** The binaries, or why they cannot be had; KADDON_REQUIRE_CLUSTER=1 turns that into a failure. */
async function obtainBinaries(): Promise<{ cluster: ClusterBinaries; helm: HelmBinaries } | string> {
  try {
    return { cluster: await ensureClusterBinaries(), helm: await ensureHelm() };
  } catch (error: unknown) {
    if (!isUnobtainable(error) || process.env.KADDON_REQUIRE_CLUSTER === '1') throw error;
    return `cluster binaries cannot be obtained on this machine: ${error.describe()}`;
  }
}

const binaries = await obtainBinaries();
const skip = typeof binaries === 'string' ? binaries : false;
const tools = typeof binaries === 'string' ? undefined : binaries;

describe('the test cluster', { skip }, () => {
  let started: TestCluster | undefined;
  const cluster = () => started!;
  before(async () => {
    started = await startTestCluster({ binaries: tools!.cluster });
  });
  after(async () => {
    await started?.stop();
  });

  it('keeps a namespace and a ConfigMap across an apiserver restart', async () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cluster-test' } };
    assert.equal((await requestApi(cluster(), 'POST', '/api/v1/namespaces', namespace)).status, 201);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'greeting' },
      data: { text: 'hello' },
    };
    assert.equal(
      (await requestApi(cluster(), 'POST', '/api/v1/namespaces/cluster-test/configmaps', configMap)).status,
      201,
    );

    await cluster().restartApiServer();

    const read = await requestApi(cluster(), 'GET', '/api/v1/namespaces/cluster-test/configmaps/greeting');
    assert.equal(read.status, 200);
    assert.deepEqual((JSON.parse(read.body) as { data: unknown }).data, { text: 'hello' });
  });

  it('is reachable by the pinned kubectl and helm through its kubeconfig', async () => {
    const kubeconfig = ['--kubeconfig', cluster().kubeconfigPath];
    await run(tools!.helm.kubectl, [...kubeconfig, 'create', 'namespace', 'kubectl-test']);
    const namespaces = await run(tools!.helm.kubectl, [...kubeconfig, 'get', 'ns', '-o', 'name']);
    assert.match(namespaces.stdout, /^namespace\/kubectl-test$/m);
    const version = await run(tools!.helm.kubectl, [...kubeconfig, 'version', '-o', 'json']);
    assert.equal(
      (JSON.parse(version.stdout) as ServerVersion).serverVersion.gitVersion,
      pinnedVersions.kubernetes,
    );
    assert.match((await run(tools!.helm.helm, ['version', '--short'])).stdout, /^v\d+\.\d+\.\d+/);
    const releases = await run(tools!.helm.helm, [...kubeconfig, 'list', '--all-namespaces', '-o', 'json']);
    assert.deepEqual(JSON.parse(releases.stdout), []);
  });

  it('leaves no process and no file behind once stopped', async () => {
    const pids = cluster().pids();
    await cluster().stop();
    assert.equal(isAlive(pids.etcd), false);
    assert.equal(isAlive(pids.apiServer), false);
    assert.equal(existsSync(cluster().dir), false);
  });
});

describe('the test-cluster command line', { skip }, () => {
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'test/cluster/cli.ts', ...args], { cwd: repoRoot });

  it('starts a cluster that outlives the command, and stops it', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'kaddon-cli-test-'));
    const dir = path.join(parent, 'cluster');
    try {
      const started = await cli('start', dir);
      assert.equal(started.stdout.trim(), path.join(dir, 'kubeconfig'));
      const state = JSON.parse(await readFile(path.join(dir, 'cluster.json'), 'utf8')) as Record<
        'etcd' | 'apiServer',
        { pid: number }
      >;
      assert.equal(isAlive(state.etcd.pid) && isAlive(state.apiServer.pid), true);
      const readyz = await run(tools!.helm.kubectl, [
        '--kubeconfig',
        started.stdout.trim(),
        'get',
        '--raw',
        '/readyz',
      ]);
      assert.equal(readyz.stdout, 'ok');

      await cli('stop', dir);
      assert.equal(isAlive(state.etcd.pid) || isAlive(state.apiServer.pid), false);
      assert.equal(existsSync(dir), false);
    } finally {
      await cli('stop', dir).catch(() => undefined);
      await rm(parent, { recursive: true, force: true });
    }
  });
});
