import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { HelmError } from '../../src/delivery/helm/helm-error.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NAMESPACE = 'field-validation';
let cluster: TestCluster;
let helm: HelmClient;
let tmpRoot: string;

before(async () => {
  const helmPath = (await ensureHelm()).helm;
  cluster = await startTestCluster();
  const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
  helm = new HelmClient({ helmPath, kubeconfigPath: cluster.kubeconfigPath });
  tmpRoot = await mkdtemp(path.join(os.tmpdir(), 'kaddon-field-validation-'));
});
after(async () => {
  await cluster.stop();
  await rm(tmpRoot, { recursive: true, force: true });
});

/**
 * kaddon runs `helm upgrade` without helm's client-side OpenAPI check (docs/performance.md "What
 * one helm upgrade costs"): the API server still refuses a field it does not know, naming it.
 */
describe('a slice with a field the API does not know', () => {
  it('fails its delivery with the field named, and installs nothing', async () => {
    const manifest = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  namespace: ${NAMESPACE}\ndatax:\n  a: "1"\n`;
    await assert.rejects(
      deliverModule(
        { module: 'typo', namespace: NAMESPACE, manifest },
        { helm, timeoutSeconds: 60, tmpRoot },
      ),
      (error: unknown) =>
        error instanceof HelmError && /\.datax: field not declared in schema/u.test(error.message),
    );
    assert.equal((await helm.release('typo', NAMESPACE))?.status, 'failed');
  });
});
