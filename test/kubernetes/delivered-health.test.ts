import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/json.ts';
import type { ObjectHealth } from '../../src/core/object-health.ts';
import { Resource } from '../../src/core/resource.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import type { ResourceEvent } from '../../src/delivery/reconcile-list.ts';
import { createCapturingLogger } from '../../src/observability/logger.ts';
import { DeliveredHealth } from '../../src/runtime/module-status/delivered-health.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

/**
 * The health follower against a real API server: several modules share one watch per kind and
 * namespace, and what a module is told must come from the listed objects, never from a watch that
 * has not listed yet (docs/module-status.md "Health", docs/drift.md "Found from watches").
 */
const NS = 'dh-shop';

let cluster: TestCluster;
let api: KubeClient;

before(async () => {
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  for (const name of ['a', 'b', 'c']) {
    await api.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment(name) });
  }
});
after(async () => {
  await cluster.stop();
});

function deployment(name: string): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: 'nginx:1.27' }] },
      },
    },
  };
}

function follower(): {
  health: DeliveredHealth;
  told: Map<string, ObjectHealth>;
  events: Array<{ module: string; event: ResourceEvent }>;
} {
  const told = new Map<string, ObjectHealth>();
  const events: Array<{ module: string; event: ResourceEvent }> = [];
  const health = new DeliveredHealth({
    api,
    defaultNamespace: NS,
    logger: createCapturingLogger(),
    onHealth: (module, found) => told.set(module, found),
    onObjectEvent: (module, event) => events.push({ module, event }),
  });
  return { health, told, events };
}

describe('DeliveredHealth', () => {
  it('tells a module that joins a watch still listing what was listed, not "not found"', async () => {
    const { health, told } = follower();
    try {
      // Both follows begin together: b joins the Deployment watch a's follow has just started.
      await Promise.all([
        health.follow('a', [new Resource(deployment('a'), 'a.yaml')]),
        health.follow('b', [new Resource(deployment('b'), 'b.yaml')]),
      ]);
      assert.equal(health.watchCount, 1);
      for (const module of ['a', 'b']) {
        const found = told.get(module);
        assert.ok(found, `${module} told its health`);
        assert.doesNotMatch(found.message, /not found/, `${module}: ${found.message}`);
        assert.match(found.message, new RegExp(`^Deployment ${NS}/${module}: `));
      }
    } finally {
      await health.stop();
    }
  });

  it('once settled, sees a change made at once as an event of the module that delivered it', async () => {
    const { health, events } = follower();
    try {
      void health.follow('c', [new Resource(deployment('c'), 'c.yaml')]);
      await health.settled();
      await api.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/c`, {
        body: { spec: { replicas: 7 } },
        contentType: 'application/merge-patch+json',
      });
      const deadline = Date.now() + 20_000;
      while (!events.some(({ module, event }) => module === 'c' && event.type === 'Modified')) {
        assert.ok(Date.now() < deadline, 'a Modified event of c');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The watch keeps only what health reads of each object; drift is told the whole object.
      const modified = events.find(({ module, event }) => module === 'c' && event.type === 'Modified');
      const object = modified?.event.object as { spec?: JsonObject; metadata?: JsonObject } | undefined;
      assert.ok(object?.spec?.template, 'the event carries the pod template');
      assert.ok(object.metadata?.managedFields, 'the event carries managedFields');
    } finally {
      await health.stop();
    }
  });

  it('says it has settled only when the follows begun before have', async () => {
    const { health, told } = follower();
    try {
      void health.follow('a', [new Resource(deployment('a'), 'a.yaml')]);
      assert.equal(told.has('a'), false);
      await health.settled();
      assert.ok(told.has('a'), 'a told its health before settled() resolved');
    } finally {
      await health.stop();
    }
  });
});
