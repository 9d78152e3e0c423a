import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { KubeApiError, KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { loadJqEngine } from '../../src/jq/jq-engine.ts';
import { ObjectPatcher, ObjectPatchFailedError } from '../../src/runtime/operator/object-patcher.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NAMESPACE = 'kaddon-object-patch';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
let cluster: TestCluster;
let client: KubeClient;
let patcher: ObjectPatcher;

before(async () => {
  cluster = await startTestCluster();
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  patcher = new ObjectPatcher(client, await loadJqEngine(), { foregroundWaitMs: 10_000, pollMs: 100 });
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
});
after(async () => {
  await cluster.stop();
});

function configMap(name: string, data: Record<string, string>): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data };
}

async function data(name: string): Promise<JsonObject | undefined> {
  try {
    const found = await client.request('GET', `${CONFIGMAPS}/${name}`);
    return isJsonObject(found.data) ? found.data : {};
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

const lines = (...operations: JsonObject[]): string => operations.map((op) => JSON.stringify(op)).join('\n');

describe('ObjectPatcher against a real API server (docs/hooks.md "Objects from hooks")', () => {
  it('creates, creates or updates, and leaves an existing object to CreateIfNotExists', async () => {
    await patcher.apply('hooks/a', lines({ operation: 'Create', object: configMap('made', { v: '1' }) }));
    assert.deepEqual(await data('made'), { v: '1' });
    await patcher.apply(
      'hooks/a',
      lines({ operation: 'CreateOrUpdate', object: configMap('made', { v: '2' }) }),
    );
    assert.deepEqual(await data('made'), { v: '2' });
    await patcher.apply(
      'hooks/a',
      lines({ operation: 'CreateIfNotExists', object: configMap('made', { v: '3' }) }),
    );
    assert.deepEqual(await data('made'), { v: '2' }, 'CreateIfNotExists leaves the existing object');
    await assert.rejects(
      patcher.apply('hooks/a', lines({ operation: 'Create', object: configMap('made', { v: '4' }) })),
      (error: unknown) =>
        error instanceof ObjectPatchFailedError &&
        /operation #1 Create ConfigMap kaddon-object-patch\/made: .*409/.test(error.message),
    );
  });

  it('patches with jq, a merge patch and a JSON patch, finding the kind without apiVersion', async () => {
    await client.request('POST', CONFIGMAPS, { body: configMap('patched', { a: '1' }) });
    const ref = { kind: 'configmap', namespace: NAMESPACE, name: 'patched' };
    await patcher.apply(
      'hooks/a',
      lines(
        { operation: 'JQPatch', ...ref, jqFilter: '.data.b = "2"' },
        { operation: 'MergePatch', ...ref, mergePatch: { data: { c: '3' } } },
        { operation: 'JSONPatch', ...ref, jsonPatch: [{ op: 'remove', path: '/data/a' }] },
      ),
    );
    assert.deepEqual(await data('patched'), { b: '2', c: '3' });
  });

  it('ignores a missing object when asked to, and reports every failed operation otherwise', async () => {
    const missing = { kind: 'ConfigMap', apiVersion: 'v1', namespace: NAMESPACE, name: 'absent' };
    await patcher.apply(
      'hooks/a',
      lines({
        operation: 'MergePatch',
        ...missing,
        mergePatch: { data: { x: '1' } },
        ignoreMissingObject: true,
      }),
    );
    await assert.rejects(
      patcher.apply(
        'hooks/a',
        lines(
          { operation: 'MergePatch', ...missing, mergePatch: { data: { x: '1' } } },
          { operation: 'Create', object: configMap('after-failure', {}) },
          { operation: 'JQPatch', ...missing, kind: 'NoSuchKind', jqFilter: '.' },
        ),
      ),
      (error: unknown) =>
        error instanceof ObjectPatchFailedError &&
        /operation #1 MergePatch ConfigMap kaddon-object-patch\/absent: .*404/.test(error.message) &&
        /operation #3 JQPatch NoSuchKind kaddon-object-patch\/absent: the API server serves no kind 'NoSuchKind'/.test(
          error.message,
        ),
    );
    assert.deepEqual(await data('after-failure'), {}, 'the operation after a failed one still ran');
  });

  it('deletes in the background, and waits for a foreground deletion to finish', async () => {
    await client.request('POST', CONFIGMAPS, { body: configMap('gone', {}) });
    await patcher.apply(
      'hooks/a',
      lines({ operation: 'DeleteInBackground', kind: 'ConfigMap', namespace: NAMESPACE, name: 'gone' }),
    );
    assert.equal(await data('gone'), undefined);
    await patcher.apply(
      'hooks/a',
      lines({ operation: 'DeleteInBackground', kind: 'ConfigMap', namespace: NAMESPACE, name: 'gone' }),
    );

    // The test cluster runs no garbage collector: the test plays its part and removes the
    // foregroundDeletion finalizer once the object is marked, which ends the wait.
    await client.request('POST', CONFIGMAPS, { body: configMap('foreground', {}) });
    const deleting = patcher.apply(
      'hooks/a',
      lines({ operation: 'Delete', kind: 'ConfigMap', namespace: NAMESPACE, name: 'foreground' }),
    );
    let finalizers: unknown;
    for (let i = 0; i < 100 && finalizers === undefined; i++) {
      const object = await client.request('GET', `${CONFIGMAPS}/foreground`);
      const metadata = isJsonObject(object.metadata) ? object.metadata : {};
      if (metadata.deletionTimestamp !== undefined) finalizers = metadata.finalizers;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(finalizers, ['foregroundDeletion']);
    await client.request('PATCH', `${CONFIGMAPS}/foreground`, {
      body: [{ op: 'remove', path: '/metadata/finalizers' }],
      contentType: 'application/json-patch+json',
    });
    await deleting;
    assert.equal(await data('foreground'), undefined);
  });
});
