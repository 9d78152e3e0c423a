import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeApiError, KubeClient, resourcePath, type WatchEvent } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

let cluster: TestCluster;
let client: KubeClient;

before(async () => {
  cluster = await startTestCluster();
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
});
after(async () => {
  await cluster.stop();
});

describe('KubeClient against a real kube-apiserver', () => {
  it('creates, reads and lists objects, and reports API errors with their status', async () => {
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kc' } },
    });
    const configMaps = await client.resolveResource('v1', 'ConfigMap');
    assert.deepEqual(configMaps, {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      name: 'configmaps',
      namespaced: true,
    });
    await client.request('POST', resourcePath(configMaps, 'kc'), {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'one', labels: { a: 'b' } },
        data: { k: 'v' },
      },
    });
    const list = await client.request('GET', resourcePath(configMaps, 'kc'), {
      query: { labelSelector: 'a=b' },
    });
    assert.deepEqual(
      (list.items as { metadata: { name: string } }[]).map((item) => item.metadata.name),
      ['one'],
    );
    await assert.rejects(
      client.request('GET', resourcePath(configMaps, 'kc', 'missing')),
      (error: unknown) => error instanceof KubeApiError && error.status === 404,
    );
  });

  it('resolves kinds through discovery, a CRD created later included', async () => {
    assert.equal((await client.resolveResource('apps/v1', 'Deployment')).name, 'deployments');
    await assert.rejects(client.resolveResource('example.com/v1', 'Widget'), KubeApiError);
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
    });
    let resolved;
    for (let attempt = 0; attempt < 50 && !resolved; attempt++) {
      resolved = await client.resolveResource('example.com/v1', 'Widget').catch(() => undefined);
      if (!resolved) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(resolved?.name, 'widgets');
  });

  it('streams watch events until aborted', async () => {
    const configMaps = await client.resolveResource('v1', 'ConfigMap');
    const list = await client.request('GET', resourcePath(configMaps, 'kc'));
    const resourceVersion = (list.metadata as { resourceVersion: string }).resourceVersion;
    const events: WatchEvent[] = [];
    const controller = new AbortController();
    const watching = client.watch(
      resourcePath(configMaps, 'kc'),
      { resourceVersion },
      (event) => {
        events.push(event);
        if (event.type === 'DELETED') controller.abort();
      },
      { signal: controller.signal, idleMs: 30_000 },
    );
    await client.request('POST', resourcePath(configMaps, 'kc'), {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } },
    });
    await client.request('DELETE', resourcePath(configMaps, 'kc', 'two'));
    await watching;
    assert.deepEqual(
      events.map((event) => `${event.type} ${(event.object.metadata as { name: string }).name}`),
      ['ADDED two', 'DELETED two'],
    );
  });
});
