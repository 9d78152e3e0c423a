import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliverModule, type DeliverDeps } from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ReleaseEngine } from '../../src/delivery/native/release-engine.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

/**
 * docs/delivery.md "Reading releases": a converge's list of releases reads the deployed ones whole,
 * so that the deliveries of unchanged modules that follow ask the API server for nothing more;
 * a release written after the list is read afresh.
 */
const NS = 'rp-shop';

let cluster: TestCluster;
let api: KubeClient;
let helm: HelmClient;
/** Every request the engine sent, as `METHOD path?labelSelector`. */
const sent: string[] = [];
let engine: ReleaseEngine;

before(async () => {
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  helm = new HelmClient({ helmPath: (await ensureHelm()).helm, kubeconfigPath: cluster.kubeconfigPath });
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  // The real client, each request written down on its way.
  const counted = new Proxy(api, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      // KubeClient keeps private fields: its methods run on the client itself, not on the proxy.
      if (property !== 'request') return (value as (...args: unknown[]) => unknown).bind(target);
      return (method: string, apiPath: string, options?: { query?: Record<string, string> }) => {
        const selector = options?.query?.labelSelector;
        sent.push(`${method} ${apiPath}${selector === undefined ? '' : `?${selector}`}`);
        return (value as KubeClient['request']).call(target, method, apiPath, options);
      };
    },
  });
  engine = new ReleaseEngine({ engine: 'native', api: counted, helm });
});
after(async () => {
  await cluster.stop();
});

function slice(name: string, color: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${NS}\ndata:\n  color: ${color}\n`;
}

describe('reading releases for a converge', () => {
  it('answers the unchanged modules after a list without another request, and reads a written one afresh', async () => {
    const deps: DeliverDeps = { helm: engine, timeoutSeconds: 60 };
    for (const module of ['alpha', 'beta', 'gamma'])
      assert.equal(
        (await deliverModule({ module, namespace: NS, manifest: slice(module, 'blue') }, deps)).outcome,
        'installed',
      );

    sent.length = 0;
    assert.deepEqual(await engine.list(NS), ['alpha', 'beta', 'gamma']);
    assert.equal(sent.length, 2, `one list of heads, one of deployed records: ${sent.join(', ')}`);

    sent.length = 0;
    for (const module of ['alpha', 'beta'])
      assert.equal(
        (await deliverModule({ module, namespace: NS, manifest: slice(module, 'blue') }, deps)).outcome,
        'unchanged',
      );
    assert.equal(sent.length, 0, `unchanged modules after the list ask for nothing: ${sent.join(', ')}`);

    // gamma changes: its delivery reads nothing more (the list had it), then writes a revision.
    const changed = await deliverModule(
      { module: 'gamma', namespace: NS, manifest: slice('gamma', 'red') },
      deps,
    );
    assert.equal(changed.outcome, 'upgraded');
    assert.equal(changed.revision, 2);
    // Written after the list: its next read asks the API server, and sees revision 2.
    sent.length = 0;
    const again = await deliverModule(
      { module: 'gamma', namespace: NS, manifest: slice('gamma', 'red') },
      deps,
    );
    assert.equal(again.outcome, 'unchanged');
    assert.equal(again.revision, 2);
    assert.ok(
      sent.some((line) => line.includes('name=gamma')),
      sent.join(', '),
    );
    // alpha was answered once from the list: a second read goes to the API server too.
    sent.length = 0;
    await engine.release('alpha', NS);
    assert.equal(sent.length, 1);
  });

  it('compares with a revision the helm binary wrote, as the list read it', async () => {
    const deps: DeliverDeps = { helm: engine, timeoutSeconds: 60 };
    // helm upgrades beta: revision 2, written by the helm binary, with its own checksum.
    const outside = new ReleaseEngine({ engine: 'helm', api, helm });
    await deliverModule(
      { module: 'beta', namespace: NS, manifest: slice('beta', 'green') },
      { helm: outside, timeoutSeconds: 60 },
    );
    await engine.list(NS);
    const back = await deliverModule(
      { module: 'beta', namespace: NS, manifest: slice('beta', 'blue') },
      deps,
    );
    assert.equal(back.outcome, 'upgraded', "the list's revision 2 holds green's checksum, not blue's");
    assert.equal(back.revision, 3);
  });

  it('installs a release the list did not see without reading its revisions, and refuses one recorded meanwhile', async () => {
    const deps: DeliverDeps = { helm: engine, timeoutSeconds: 60 };
    await engine.list(NS);
    sent.length = 0;
    const installed = await deliverModule(
      { module: 'delta', namespace: NS, manifest: slice('delta', 'blue'), knownAbsent: true },
      deps,
    );
    assert.equal(installed.outcome, 'installed');
    assert.equal(installed.revision, 1);
    assert.ok(!sent.some((line) => line.startsWith('GET')), `nothing read: ${sent.join(', ')}`);
    assert.equal((await helm.status('delta', NS))?.status, 'deployed');

    // Another writer installs epsilon after the list: kaddon's revision 1 is refused, helm's stays.
    await engine.list(NS);
    const outside = new ReleaseEngine({ engine: 'helm', api, helm });
    await deliverModule(
      { module: 'epsilon', namespace: NS, manifest: slice('epsilon', 'green') },
      { helm: outside, timeoutSeconds: 60 },
    );
    await assert.rejects(
      deliverModule(
        { module: 'epsilon', namespace: NS, manifest: slice('epsilon', 'blue'), knownAbsent: true },
        deps,
      ),
      /already exists/u,
    );
    const records = await helm.history('epsilon', NS);
    assert.deepEqual(
      records.map((record) => [record.revision, record.status]),
      [[1, 'deployed']],
    );
    const live = await api.request('GET', `/api/v1/namespaces/${NS}/configmaps/epsilon`);
    assert.deepEqual(live.data, { color: 'green' });
    // Its next delivery reads the revisions and upgrades what the other writer installed.
    const next = await deliverModule(
      { module: 'epsilon', namespace: NS, manifest: slice('epsilon', 'blue') },
      deps,
    );
    assert.equal(next.outcome, 'upgraded');
    assert.equal(next.revision, 2);
  });
});
