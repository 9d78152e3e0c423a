import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { hasKubectl } from '../kubectl.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { runCli } from '../run-cli.ts';
import { repoRoot } from '../repo-root.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const deploy = path.join(repoRoot, 'deploy');
const overlay = mkdtempSync(path.join(tmpdir(), 'kaddon-deploy-'));
let cluster: TestCluster;
let api: KubeClient;

/** deploy/ with every component switched on, as a user's overlay would do it. */
writeFileSync(
  path.join(overlay, 'kustomization.yaml'),
  `namespace: kaddon\nresources:\n- ${path.relative(overlay, path.join(deploy, 'base'))}\ncomponents:\n${['high-availability', 'service-monitor', 'git-sync'].map((c) => `- ${path.relative(overlay, path.join(deploy, 'components', c))}`).join('\n')}\n`,
);

before(async () => {
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
});
after(async () => {
  await cluster.stop();
  rmSync(overlay, { recursive: true, force: true });
});

async function build(dir: string): Promise<string> {
  const run = await runCli(['kustomize', dir]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

describe('deploy/: the install manifests', () => {
  for (const [what, dir] of [
    ['deploy/', deploy],
    ['deploy/ with every component', overlay],
  ] as const) {
    it(
      `${what}: kaddon kustomize prints what kubectl kustomize prints`,
      { skip: hasKubectl() ? false : 'kubectl is not installed' },
      async () => {
        assert.equal(await build(dir), execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' }));
      },
    );
  }

  it('are objects the API server accepts (server-side dry run, strict field validation)', async () => {
    const objects = parseAllDocuments(await build(overlay))
      .map((doc) => doc.toJS() as unknown)
      .filter(isJsonObject);
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    const kinds = objects.map((obj) => text(obj.kind));
    assert.deepEqual([...new Set(kinds)].sort(), [
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Namespace',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
      'ServiceMonitor',
    ]);
    const deployment = objects.find((obj) => obj.kind === 'Deployment') as JsonObject;
    assert.equal((deployment.spec as JsonObject).replicas, 2, 'the HA component runs two replicas');
    await api.request('POST', '/api/v1/namespaces', {
      body: objects.find((obj) => obj.kind === 'Namespace'),
    });
    // No ServiceMonitor CRD in the test cluster: the monitoring component is checked by its build only.
    for (const obj of objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'ServiceMonitor')) {
      const resource = await api.resolveResource(text(obj.apiVersion), text(obj.kind));
      const namespace = resource.namespaced ? '/namespaces/kaddon' : '';
      const base = resource.group
        ? `/apis/${resource.group}/${resource.version}`
        : `/api/${resource.version}`;
      await api.request('POST', `${base}${namespace}/${resource.name}`, {
        body: obj,
        query: { dryRun: 'All', fieldValidation: 'Strict' },
      });
    }
  });
});
