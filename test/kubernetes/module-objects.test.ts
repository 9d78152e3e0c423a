import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, scalarText, type JsonObject } from '../../src/core/json.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { MODULES_PATH } from '../../src/delivery/module-crd.ts';
import { ModuleObjects } from '../../src/delivery/module-objects.ts';
import { createCapturingLogger } from '../../src/observability/logger.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NAMESPACE = 'module-objects';
let cluster: TestCluster;
let admin: KubeClient;
let dir: string;

before(async () => {
  cluster = await startTestCluster();
  admin = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  dir = mkdtempSync(path.join(tmpdir(), 'kaddon-module-objects-'));
  await admin.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
});
after(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A client of a service account that no RBAC rule grants anything. */
async function unprivilegedClient(): Promise<KubeClient> {
  await admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody' } },
  });
  const minted = await admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/nobody/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const token =
    isJsonObject(minted.status) && typeof minted.status.token === 'string' ? minted.status.token : '';
  const caFile = path.join(dir, 'ca.crt');
  writeFileSync(caFile, cluster.caPem);
  const kubeconfig = path.join(dir, 'nobody.kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: cluster.server, 'certificate-authority': caFile } }],
      users: [{ name: 'nobody', user: { token } }],
      contexts: [{ name: 'nobody', context: { cluster: 'test', user: 'nobody' } }],
      'current-context': 'nobody',
    }),
  );
  return new KubeClient(connectionFromKubeconfig(kubeconfig));
}

describe('Module objects against a real kube-apiserver', () => {
  it('where RBAC forbids them, says once that module status is off and writes nothing', async () => {
    const logger = createCapturingLogger();
    const objects = new ModuleObjects(await unprivilegedClient(), logger);
    await objects.start({ manageCrd: true });
    objects.publish('echo', { enabled: true });
    objects.publish('redis', { enabled: true });
    objects.remove('echo');
    await objects.flush();
    assert.equal(objects.enabled, false);
    const off = logger.entries.filter((entry) => entry.msg.startsWith('module status is off'));
    assert.equal(off.length, 1, JSON.stringify(logger.entries));
    assert.match(String(off[0]?.fields.error), /403/);
    // The CRD was not there and could not be made: nothing of it exists now.
    await assert.rejects(
      admin.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modules.kaddon.dev'),
    );
  });

  it('a stop waits a bounded time for queued status writes, then drops the rest and says how many', async () => {
    // At 5 requests a second, 60 modules' status would take 12 s to write.
    const slow = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath), {
      rateLimit: { qps: 5, burst: 1 },
    });
    const logger = createCapturingLogger();
    const objects = new ModuleObjects(slow, logger);
    await objects.start({ manageCrd: true });
    for (let index = 0; index < 60; index++) objects.publish(`queued-${String(index)}`, { enabled: true });
    const startedAt = performance.now();
    await objects.flush(1_000);
    const waited = performance.now() - startedAt;
    assert.ok(waited < 5_000, `flush(1000) waited ${waited.toFixed(0)} ms`);
    const [dropped] = logger.entries.filter((entry) =>
      entry.msg.startsWith('stopping: Module status writes'),
    );
    const count = Number(dropped?.fields.dropped);
    assert.ok(count > 30 && count < 60, JSON.stringify(dropped));
    const list = await admin.request('GET', MODULES_PATH);
    const written = (Array.isArray(list.items) ? list.items : []).filter(
      (item) => isJsonObject(item) && scalarText((item.metadata as JsonObject).name).startsWith('queued-'),
    ).length;
    assert.ok(written + count <= 60, `${String(written)} written and ${String(count)} dropped of 60`);
    // Nothing is written after the stop gave up on them.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await admin.request('GET', MODULES_PATH);
    const writtenLater = (Array.isArray(after.items) ? after.items : []).filter(
      (item) => isJsonObject(item) && scalarText((item.metadata as JsonObject).name).startsWith('queued-'),
    ).length;
    assert.ok(writtenLater <= written + 1, `${String(writtenLater)} after, ${String(written)} at the stop`);
  });

  it('creates the CRD, a Module with its status on first report, and deletes it', async () => {
    const objects = new ModuleObjects(admin, createCapturingLogger());
    await objects.start({ manageCrd: true });
    assert.equal(objects.enabled, true);
    const status: JsonObject = {
      enabled: true,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Succeeded',
          message: 'delivered; 2 objects healthy',
          lastTransitionTime: '2026-11-25T00:00:00Z',
        },
      ],
    };
    objects.publish('echo', status);
    await objects.flush();
    const created = await admin.request('GET', `${MODULES_PATH}/echo`);
    assert.deepEqual(created.status, status);
    assert.ok(objects.uidOf('echo'));
    objects.remove('echo');
    await objects.flush();
    await assert.rejects(admin.request('GET', `${MODULES_PATH}/echo`), /404/);
  });

  it('the CRD deleted: creates it again and writes every module status anew', async () => {
    const logger = createCapturingLogger();
    const objects = new ModuleObjects(admin, logger);
    await objects.start({ manageCrd: true, resyncMs: 1_000 });
    try {
      objects.publish('alpha', statusSaying('alpha delivered'));
      objects.publish('beta', statusSaying('beta delivered'));
      await objects.flush();
      await deleteCrd();
      // Nothing changes in kaddon meanwhile: the periodic check finds the objects gone.
      const alpha = await eventuallyObject('alpha');
      const beta = await eventuallyObject('beta');
      assert.deepEqual(alpha.status, statusSaying('alpha delivered'));
      assert.deepEqual(beta.status, statusSaying('beta delivered'));
      assert.equal(objects.enabled, true, 'status was never turned off');
      assert.ok(
        logger.entries.some((entry) => entry.level === 'warn' && /cannot be written/.test(entry.msg)),
      );
      // And later reports are written as before.
      objects.publish('alpha', statusSaying('alpha upgraded'));
      await objects.flush();
      assert.deepEqual(
        (await admin.request('GET', `${MODULES_PATH}/alpha`)).status,
        statusSaying('alpha upgraded'),
      );
    } finally {
      objects.stop();
    }
  });

  it('without managing the CRD: writes the objects again once someone re-creates it', async () => {
    const objects = new ModuleObjects(admin, createCapturingLogger());
    await objects.start({ manageCrd: false, resyncMs: 1_000 });
    try {
      objects.publish('gamma', statusSaying('gamma delivered'));
      await objects.flush();
      const crd = await admin.request('GET', CRD);
      await deleteCrd();
      objects.publish('gamma', statusSaying('gamma upgraded'));
      // Refused meanwhile; re-created by hand, as `kubectl apply -f deploy/base/module-crd.yaml` would.
      const metadata = isJsonObject(crd.metadata) ? crd.metadata : {};
      await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: {
          apiVersion: crd.apiVersion,
          kind: crd.kind,
          metadata: { name: metadata.name },
          spec: crd.spec,
        },
      });
      const gamma = await eventuallyObject('gamma');
      assert.deepEqual(gamma.status, statusSaying('gamma upgraded'));
    } finally {
      objects.stop();
    }
  });
});

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modules.kaddon.dev';

function statusSaying(message: string): JsonObject {
  return {
    enabled: true,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Succeeded',
        message,
        lastTransitionTime: '2026-11-28T00:00:00Z',
      },
    ],
  };
}

/** Deletes the Module CRD and waits until it (and with it every Module object) is gone. */
async function deleteCrd(): Promise<void> {
  await admin.request('DELETE', CRD);
  await poll(
    'the CRD gone',
    async () =>
      (await admin.request('GET', CRD).then(
        () => false,
        () => true,
      )) || undefined,
  );
}

/** The Module object once it exists again with a status, within a minute. */
function eventuallyObject(module: string): Promise<JsonObject> {
  return poll(`Module ${module} back`, async () => {
    const object = await admin.request('GET', `${MODULES_PATH}/${module}`).catch(() => undefined);
    return object?.status === undefined ? undefined : object;
  });
}

async function poll<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${String(deadlineMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
