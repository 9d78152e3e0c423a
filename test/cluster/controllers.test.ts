import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { requestApi } from './api-request.ts';
import {
  ensureClusterBinaries,
  ensureControllerBinaries,
  type ClusterBinaries,
  type ControllerBinaries,
} from './cluster-binaries.ts';
import { isUnobtainable } from './cluster-error.ts';
import { fakeNodeNames } from './fake-nodes.ts';
import type { ClusterState } from './cluster-state.ts';
import { isAlive } from './server-process.ts';
import { startTestCluster, type TestCluster } from './test-cluster.ts';

const run = promisify(execFile);

/** The binaries, or why they cannot be had; KADDON_REQUIRE_CLUSTER=1 turns that into a failure. */
async function obtainBinaries(): Promise<
  { cluster: ClusterBinaries; controllers: ControllerBinaries } | string
> {
  try {
    return { cluster: await ensureClusterBinaries(), controllers: await ensureControllerBinaries() };
  } catch (error: unknown) {
    if (!isUnobtainable(error) || process.env.KADDON_REQUIRE_CLUSTER === '1') throw error;
    return `controller binaries cannot be obtained on this machine: ${error.describe()}`;
  }
}

const binaries = await obtainBinaries();
const skip = typeof binaries === 'string' ? binaries : false;
const tools = typeof binaries === 'string' ? undefined : binaries;

interface KubeObject {
  readonly metadata: { readonly uid: string };
  /** Only a Lease's is read. */
  readonly spec?: { readonly renewTime?: string };
  readonly status?: {
    readonly phase?: string;
    readonly conditions?: readonly { type: string; status: string; reason?: string }[];
    readonly [field: string]: unknown;
  };
}

const namespace = 'workloads';
const container = { name: 'app', image: 'kaddon.test/fake:1' };
const labelled = (app: string) => ({ selector: { matchLabels: { app } }, template: podTemplate(app) });

function podTemplate(app: string, spec: object = {}): object {
  return { metadata: { labels: { app } }, spec: { containers: [container], ...spec } };
}

function renewTimeOf(lease: KubeObject | undefined): string | undefined {
  return lease?.spec?.renewTime;
}

function hasCondition(object: KubeObject | undefined, type: string, status = 'True'): boolean {
  return object?.status?.conditions?.some((c) => c.type === type && c.status === status) ?? false;
}

describe('the test cluster with controllers', { skip }, () => {
  let started: TestCluster | undefined;
  const cluster = () => started!;

  async function create(apiPath: string, object: object): Promise<KubeObject> {
    const response = await requestApi(cluster(), 'POST', apiPath, object);
    assert.equal(response.status, 201, response.body);
    return JSON.parse(response.body) as KubeObject;
  }

  async function read(apiPath: string): Promise<KubeObject | undefined> {
    const response = await requestApi(cluster(), 'GET', apiPath);
    return response.status === 200 ? (JSON.parse(response.body) as KubeObject) : undefined;
  }

  /** Polls `apiPath` until `isDone` holds, failing with the object's last state after `deadlineMs`. */
  async function eventually(
    apiPath: string,
    isDone: (object: KubeObject | undefined) => boolean,
    deadlineMs = 60_000,
  ): Promise<KubeObject | undefined> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const object = await read(apiPath);
      if (isDone(object)) return object;
      if (Date.now() > deadline) assert.fail(`${apiPath}: not reached; last state ${JSON.stringify(object)}`);
      await sleep(250);
    }
  }

  before(async () => {
    started = await startTestCluster({
      withControllers: true,
      binaries: tools!.cluster,
      controllerBinaries: tools!.controllers,
    });
    await create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  });
  after(async () => {
    await started?.stop();
  });

  it('keeps a Lease in kube-node-lease for each fake Node and renews it, as a kubelet does', async () => {
    for (const node of fakeNodeNames) {
      const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`;
      const held = await eventually(leasePath, (object) => renewTimeOf(object) !== undefined);
      const first = renewTimeOf(held);
      // Renewed every quarter of its 40 s duration: a new renewTime within the wait's deadline.
      await eventually(leasePath, (object) => renewTimeOf(object) !== first);
    }
  });

  it('rolls out a Deployment: two Pods scheduled, running and ready', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
    await create(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      ...deployment,
      spec: { replicas: 2, ...labelled('web') },
    });
    const rolledOut = await eventually(
      `/apis/apps/v1/namespaces/${namespace}/deployments/web`,
      (object) => object?.status?.availableReplicas === 2 && hasCondition(object, 'Available'),
    );
    assert.equal(rolledOut?.status?.readyReplicas, 2);
  });

  it('brings a StatefulSet and a DaemonSet (one Pod per fake Node) to ready', async () => {
    const statefulSet = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' } };
    await create(`/apis/apps/v1/namespaces/${namespace}/statefulsets`, {
      ...statefulSet,
      spec: { replicas: 2, serviceName: 'db', ...labelled('db') },
    });
    const daemonSet = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' } };
    await create(`/apis/apps/v1/namespaces/${namespace}/daemonsets`, {
      ...daemonSet,
      spec: labelled('agent'),
    });

    await eventually(
      `/apis/apps/v1/namespaces/${namespace}/statefulsets/db`,
      (object) => object?.status?.readyReplicas === 2,
    );
    await eventually(
      `/apis/apps/v1/namespaces/${namespace}/daemonsets/agent`,
      (object) => object?.status?.numberReady === 2 && object.status.desiredNumberScheduled === 2,
    );
  });

  it('keeps a Pod whose nodeSelector matches no Node Pending and unschedulable', async () => {
    await create(`/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nowhere' },
      spec: { containers: [container], nodeSelector: { 'kaddon.test/pool': 'none' } },
    });
    const podPath = `/api/v1/namespaces/${namespace}/pods/nowhere`;
    const pod = await eventually(podPath, (object) => hasCondition(object, 'PodScheduled', 'False'));
    const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(scheduled?.reason, 'Unschedulable');
    assert.equal(pod?.status?.phase, 'Pending');
  });

  it('completes a Job', async () => {
    await create(`/apis/batch/v1/namespaces/${namespace}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once' },
      spec: { template: podTemplate('once', { restartPolicy: 'Never' }) },
    });
    const job = await eventually(`/apis/batch/v1/namespaces/${namespace}/jobs/once`, (object) =>
      hasCondition(object, 'Complete'),
    );
    assert.equal(job?.status?.succeeded, 1);
  });

  it('collects a ConfigMap once the ConfigMap that owns it is deleted', async () => {
    const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;
    const owner = await create(configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner' },
    });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
    await create(configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', ownerReferences },
    });

    assert.equal((await requestApi(cluster(), 'DELETE', `${configMaps}/owner`)).status, 200);
    await eventually(`${configMaps}/owned`, (object) => object === undefined);
  });

  it('finishes deleting a Namespace that holds a running Deployment', async () => {
    const doomed = 'doomed';
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: doomed } });
    await create(`/apis/apps/v1/namespaces/${doomed}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, ...labelled('web') },
    });
    await eventually(`/apis/apps/v1/namespaces/${doomed}/deployments/web`, (object) =>
      hasCondition(object, 'Available'),
    );

    assert.equal((await requestApi(cluster(), 'DELETE', `/api/v1/namespaces/${doomed}`)).status, 200);
    await eventually(`/api/v1/namespaces/${doomed}`, (object) => object === undefined, 120_000);
  });

  it('leaves no process and no file behind once stopped', async () => {
    const { etcd, apiServer, controllerManager, scheduler, kwok } = cluster().pids();
    const pids = [etcd, apiServer, controllerManager, scheduler, kwok];
    assert.equal(
      pids.every((pid) => isAlive(pid)),
      true,
    );
    await cluster().stop();
    assert.deepEqual(
      pids.filter((pid) => isAlive(pid)),
      [],
    );
    assert.equal(existsSync(cluster().dir), false);
  });
});

describe('the test-cluster command line with --with-controllers', { skip }, () => {
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'test/cluster/cli.ts', ...args], { cwd: repoRoot });

  it('starts a cluster with Ready fake Nodes that outlives the command, and stops it', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'kaddon-cli-test-'));
    const dir = path.join(parent, 'cluster');
    try {
      const started = await cli('start', dir, '--with-controllers');
      assert.equal(started.stdout.trim(), path.join(dir, 'kubeconfig'));
      const state = JSON.parse(await readFile(path.join(dir, 'cluster.json'), 'utf8')) as ClusterState;
      const pids = [state.etcd, state.apiServer, state.controllerManager, state.scheduler, state.kwok].map(
        (server) => server?.pid ?? -1,
      );
      assert.equal(
        pids.every((pid) => isAlive(pid)),
        true,
      );

      await cli('stop', dir);
      assert.deepEqual(
        pids.filter((pid) => isAlive(pid)),
        [],
      );
      assert.equal(existsSync(dir), false);
    } finally {
      await cli('stop', dir).catch(() => undefined);
      await rm(parent, { recursive: true, force: true });
    }
  });
});
