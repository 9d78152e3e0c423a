import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { hasKubectl } from '../kubectl.ts';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const overlays = mkdtempSync(path.join(tmpdir(), 'kaddon-deploy-'));
let cluster: TestCluster;
let api: KubeClient;

/** deploy/ with these components switched on, as a user's overlay would do it. */
function writeOverlay(name: string, components: readonly string[]): string {
  const dir = path.join(overlays, name);
  mkdirSync(dir);
  const relative = (target: string): string => path.relative(dir, path.join(deploy, target));
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    `namespace: kaddon\nresources:\n- ${relative('base')}\ncomponents:\n${components.map((c) => `- ${relative(`components/${c}`)}`).join('\n')}\n`,
  );
  return dir;
}
const COMPONENTS = ['high-availability', 'service-monitor', 'git-sync', 'ui-sign-in'];
const overlay = writeOverlay('every-component', [...COMPONENTS, 'monitoring']);
/**
 * Without monitoring for the text comparison: the dashboard's JSON has lines over 80 columns, which
 * kaddon prints in a folded block where kubectl prints a literal one (docs/differences-from-kustomize.md).
 */
const textOverlay = writeOverlay('text', COMPONENTS);

before(async () => {
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
});
after(async () => {
  await cluster.stop();
  rmSync(overlays, { recursive: true, force: true });
});

async function build(dir: string): Promise<string> {
  const run = await runCli(['kustomize', dir]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

describe('deploy/: the install manifests', () => {
  for (const [what, dir] of [
    ['deploy/', deploy],
    ['deploy/ with every component but monitoring', textOverlay],
  ] as const) {
    it(
      `${what}: kaddon kustomize prints what kubectl kustomize prints`,
      { skip: hasKubectl() ? false : 'kubectl is not installed' },
      async () => {
        assert.equal(await build(dir), execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' }));
      },
    );
  }

  it(
    'deploy/ with every component: kaddon kustomize makes the objects kubectl kustomize makes',
    { skip: hasKubectl() ? false : 'kubectl is not installed' },
    async () => {
      const objects = (text: string): unknown[] =>
        parseAllDocuments(text).map((doc) => doc.toJS() as unknown);
      const kubectl = execFileSync('kubectl', ['kustomize', overlay], { encoding: 'utf8' });
      assert.deepEqual(objects(await build(overlay)), objects(kubectl));
    },
  );

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
      'CustomResourceDefinition',
      'Deployment',
      'Namespace',
      'PodDisruptionBudget',
      'PrometheusRule',
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
    const dashboard = objects.find((obj) => (obj.metadata as JsonObject).name === 'kaddon-grafana-dashboard');
    assert.deepEqual((dashboard?.metadata as JsonObject).labels, {
      'app.kubernetes.io/name': 'kaddon',
      grafana_dashboard: '1',
    });
    // The example Ingress of the Git webhook is not listed in the component: checked here too.
    const ingress = parseAllDocuments(
      readFileSync(path.join(deploy, 'components/git-sync/webhook-ingress.yaml'), 'utf8'),
    ).map((doc) => doc.toJS() as JsonObject);
    // No prometheus-operator CRDs in the test cluster: ServiceMonitor and PrometheusRule are checked by
    // their build only (test/observability/monitoring-rules.test.ts checks the rules themselves).
    const withoutCrd = new Set(['Namespace', 'ServiceMonitor', 'PrometheusRule']);
    for (const obj of [...objects.filter((o) => !withoutCrd.has(text(o.kind))), ...ingress]) {
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
