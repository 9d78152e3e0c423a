import assert from 'node:assert/strict';
import { execa } from 'execa';
import { isJsonObject, scalarText, type JsonObject } from '../../src/core/json.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ReleaseEngine, type DeliveryEngine } from '../../src/delivery/native/release-engine.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

/**
 * What the native engine's equivalence tests share (docs/delivery.md "Tests"): one test cluster
 * per engine, each with its API client, helm client and ReleaseEngine, and the views of a release
 * that the two engines must leave alike.
 */

/** ADDON_OPERATOR_NAMESPACE of the tests: where releases are stored. */
export const RELEASE_NS = 'kaddon';

export interface Side {
  readonly cluster: TestCluster;
  readonly api: KubeClient;
  readonly helm: HelmClient;
  readonly engine: ReleaseEngine;
}

let helmBinary: string | undefined;
const sides = new Map<DeliveryEngine, Side>();

/** Starts a cluster for each engine, with the release namespace; once, in the file's before(). */
export async function startSides(): Promise<void> {
  helmBinary = (await ensureHelm()).helm;
  for (const engine of ['helm', 'native'] as const) {
    const cluster = await startTestCluster();
    const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
    const helm = new HelmClient({ helmPath: helmBinary, kubeconfigPath: cluster.kubeconfigPath });
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: RELEASE_NS } },
    });
    sides.set(engine, { cluster, api, helm, engine: new ReleaseEngine({ engine, api, helm }) });
  }
}

export async function stopSides(): Promise<void> {
  for (const found of sides.values()) await found.cluster.stop();
  sides.clear();
}

/** The pinned helm binary startSides found. */
export function helmPath(): string {
  assert.ok(helmBinary !== undefined, 'startSides ran');
  return helmBinary;
}

export function side(engine: DeliveryEngine): Side {
  const found = sides.get(engine);
  assert.ok(found);
  return found;
}

/** `helm history -o json` as the real helm prints it, times left out. */
export async function helmHistory(
  engine: DeliveryEngine,
  release: string,
  namespace = RELEASE_NS,
): Promise<JsonObject[]> {
  const { stdout } = await execa(helmPath(), ['history', release, '-n', namespace, '-o', 'json'], {
    env: { KUBECONFIG: side(engine).cluster.kubeconfigPath, HELM_NO_PLUGINS: '1' },
  });
  const rows = JSON.parse(stdout) as JsonObject[];
  return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => key !== 'updated')));
}

/**
 * The live object without what differs between two clusters for the same writes: times,
 * resourceVersions, uids and the Service IPs each cluster allocates.
 */
export function comparable(object: JsonObject): JsonObject {
  const copy = JSON.parse(JSON.stringify(object)) as JsonObject;
  const metadata = isJsonObject(copy.metadata) ? copy.metadata : {};
  delete metadata.resourceVersion;
  delete metadata.uid;
  delete metadata.creationTimestamp;
  if (Array.isArray(metadata.managedFields))
    for (const entry of metadata.managedFields) if (isJsonObject(entry)) delete entry.time;
  if (copy.kind === 'Service' && isJsonObject(copy.spec)) {
    delete copy.spec.clusterIP;
    delete copy.spec.clusterIPs;
  }
  return copy;
}

export async function exists(engine: DeliveryEngine, apiPath: string): Promise<boolean> {
  try {
    await side(engine).api.request('GET', apiPath);
    return true;
  } catch {
    return false;
  }
}

/** ConfigMaps named `names` in the namespace, each with `data.x: value`, as one YAML stream. */
export function configMaps(namespace: string, names: readonly string[], value = '1'): string {
  return names
    .map(
      (name) =>
        `apiVersion: v1\ndata:\n  x: "${value}"\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n`,
    )
    .join('---\n');
}

/** The ConfigMaps of the namespace on both clusters, sorted, the API server's own left out. */
export async function liveConfigMaps(namespace: string): Promise<string[]> {
  const names: string[] = [];
  for (const engine of sides.keys()) {
    const list = await side(engine).api.request('GET', `/api/v1/namespaces/${namespace}/configmaps`);
    for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
      const name = scalarText((item.metadata as JsonObject).name);
      if (name !== 'kube-root-ca.crt') names.push(name);
    }
  }
  return names.sort();
}
