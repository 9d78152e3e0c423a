import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { execa } from 'execa';
import { isJsonObject } from '../../src/core/json.ts';
import { applyCrds } from '../../src/delivery/helm/apply-crds.ts';
import { deleteModule, orphanReleases } from '../../src/delivery/helm/delete-module.ts';
import {
  CHECKSUM_VALUES_KEY,
  deliverModule,
  type DeliverDeps,
} from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient, type ReleaseState } from '../../src/delivery/helm/helm-client.ts';
import { HelmError } from '../../src/delivery/helm/helm-error.ts';
import { writeReleaseChart } from '../../src/delivery/helm/release-chart.ts';
import { renderChartModule } from '../../src/delivery/helm/render-chart-module.ts';
import { KubeApiError, KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';
import { crdYaml } from './crd-yaml.ts';

let cluster: TestCluster;
let api: KubeClient;
let helmPath: string;
let helm: HelmClient;
let deps: DeliverDeps;

before(async () => {
  helmPath = (await ensureHelm()).helm;
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  helm = new HelmClient({ helmPath, kubeconfigPath: cluster.kubeconfigPath });
  deps = { helm, timeoutSeconds: 60 };
});
after(async () => {
  await cluster.stop();
});

/** A namespace of the test's own, and its releases uninstalled when the test ends. */
async function namespaceFor(t: TestContext, name: string): Promise<string> {
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  t.after(async () => {
    for (const release of await helm.list(name)) await helm.uninstall(release, name);
  });
  return name;
}

function configMap(name: string, data: Record<string, string>): string {
  const entries = Object.entries(data).map(([key, value]) => `  ${key}: ${value}\n`);
  return `apiVersion: v1\ndata:\n${entries.join('')}kind: ConfigMap\nmetadata:\n  name: ${name}\n`;
}

const service = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n';

/**
 * What `helm get manifest` prints for a release chart (helm 4.1.4): each document trimmed, after
 * `---` and a `# Source:` line, then one more newline. Documents in helm's install order.
 */
function helmManifest(module: string, documents: readonly string[]): string {
  const source = `# Source: ${module}/templates/manifest.yaml\n`;
  return `${documents.map((doc) => `---\n${source}${doc.trim()}\n`).join('')}\n`;
}

async function historyStates(release: string, namespace: string): Promise<ReleaseState[]> {
  return (await helm.history(release, namespace)).map((entry) => entry.status);
}

describe('helm delivery against a real cluster and helm', () => {
  it('installs a slice verbatim, skips an unchanged one and upgrades a changed one', async (t) => {
    const ns = await namespaceFor(t, 'hd-install');
    const templated = configMap('settings', {
      greeting: "'{{ .Values.greeting }}'",
      'run.sh': '|\n    {{- if .x }}echo "{{ .Release.Name }}" $$HOME{{ end }}',
    });
    const slice = `${templated}---\n${service}`;
    const first = await deliverModule({ module: 'echo-server', namespace: ns, manifest: slice }, deps);
    assert.equal(first.outcome, 'installed');
    assert.equal(first.revision, 1);
    assert.equal(
      await helm.getManifest('echo-server', ns),
      helmManifest('echo-server', [templated, service]),
    );
    const live = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`);
    assert.deepEqual(live.data, {
      greeting: '{{ .Values.greeting }}',
      'run.sh': '{{- if .x }}echo "{{ .Release.Name }}" $$HOME{{ end }}\n',
    });
    assert.equal((await helm.getValues('echo-server', ns))[CHECKSUM_VALUES_KEY], first.checksum);

    const again = await deliverModule({ module: 'echo-server', namespace: ns, manifest: slice }, deps);
    assert.deepEqual(again, { outcome: 'unchanged', revision: 1, checksum: first.checksum });
    assert.deepEqual(await historyStates('echo-server', ns), ['deployed']);

    const changed = configMap('settings', { greeting: 'hello' });
    const third = await deliverModule({ module: 'echo-server', namespace: ns, manifest: changed }, deps);
    assert.equal(third.outcome, 'upgraded');
    assert.equal(third.reason, 'checksum-changed');
    assert.deepEqual(await historyStates('echo-server', ns), ['superseded', 'deployed']);
    assert.equal(await helm.getManifest('echo-server', ns), helmManifest('echo-server', [changed]));
    assert.equal(third.revision, 2, 'the revision helm upgrade printed');
    assert.deepEqual(await helm.release('echo-server', ns), {
      status: 'deployed',
      revision: 2,
      values: { [CHECKSUM_VALUES_KEY]: third.checksum },
    });
    assert.equal(await helm.release('never-installed', ns), undefined);
  });

  it('installs without a status call when the release is known absent; upgrades if it appeared', async (t) => {
    const ns = await namespaceFor(t, 'hd-absent');
    const first = configMap('settings', { a: 'one' });
    const installed = await deliverModule(
      { module: 'fresh', namespace: ns, manifest: first, knownAbsent: true },
      deps,
    );
    assert.deepEqual([installed.outcome, installed.revision], ['installed', 1]);
    const second = configMap('settings', { a: 'two' });
    const again = await deliverModule(
      { module: 'fresh', namespace: ns, manifest: second, knownAbsent: true },
      deps,
    );
    assert.equal(again.revision, 2, 'upgrade --install upgrades a release that exists after all');
    assert.deepEqual(await historyStates('fresh', ns), ['superseded', 'deployed']);
  });

  it('upgrades an unchanged slice when resources are missing, and a changed checksum input', async (t) => {
    const ns = await namespaceFor(t, 'hd-heal');
    const slice = configMap('settings', { a: 'b' });
    await deliverModule({ module: 'heal', namespace: ns, manifest: slice }, deps);
    await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/settings`);
    const healed = await deliverModule(
      { module: 'heal', namespace: ns, manifest: slice, resourcesMissing: true },
      deps,
    );
    assert.equal(healed.outcome === 'upgraded' && healed.reason, 'resources-missing');
    assert.equal(healed.revision, 2);
    const live = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`);
    assert.deepEqual(live.data, { a: 'b' });
    const withInput = { module: 'heal', namespace: ns, manifest: slice, checksumInputs: ['values:2'] };
    assert.equal((await deliverModule(withInput, deps)).outcome, 'upgraded');
    assert.equal((await deliverModule(withInput, deps)).outcome, 'unchanged');
  });

  it('recovers a release left in pending-upgrade by a killed helm: rollback, then upgrade', async (t) => {
    const ns = await namespaceFor(t, 'hd-pending-upgrade');
    const slice = configMap('settings', { version: 'one' });
    await deliverModule({ module: 'stuck', namespace: ns, manifest: slice }, deps);
    await killHelmMidOperation(t, 'stuck', ns, 'pre-upgrade', 'pending-upgrade');
    assert.deepEqual(await historyStates('stuck', ns), ['deployed', 'pending-upgrade']);

    const next = configMap('settings', { version: 'two' });
    const result = await deliverModule({ module: 'stuck', namespace: ns, manifest: next }, deps);
    assert.equal(result.outcome, 'recovered');
    assert.deepEqual(result.recovery, {
      action: 'rollback',
      from: 'pending-upgrade',
      toRevision: 1,
    });
    assert.deepEqual(await historyStates('stuck', ns), [
      'superseded',
      'pending-upgrade',
      'superseded',
      'deployed',
    ]);
    assert.equal(await helm.getManifest('stuck', ns), helmManifest('stuck', [next]));
  });

  it('recovers a first install left in pending-install: uninstall, then install', async (t) => {
    const ns = await namespaceFor(t, 'hd-pending-install');
    await killHelmMidOperation(t, 'fresh', ns, 'pre-install', 'pending-install');
    const slice = configMap('settings', { a: 'b' });
    const result = await deliverModule({ module: 'fresh', namespace: ns, manifest: slice }, deps);
    assert.equal(result.outcome, 'recovered');
    assert.deepEqual(result.recovery, {
      action: 'uninstall',
      from: 'pending-install',
    });
    assert.deepEqual(await historyStates('fresh', ns), ['deployed']);
  });

  it('uninstalls a module (an absent release is fine) and purges releases without a module', async (t) => {
    const ns = await namespaceFor(t, 'hd-purge');
    for (const module of ['alpha', 'beta', 'gamma', 'kaddon'])
      await deliverModule({ module, namespace: ns, manifest: configMap(`cm-${module}`, { a: 'b' }) }, deps);
    await deleteModule('alpha', ns, helm);
    await deleteModule('alpha', ns, helm);
    assert.equal(await helm.status('alpha', ns), undefined);
    const orphans = orphanReleases(await helm.list(ns), new Set(['beta', 'delta']), 'kaddon');
    assert.deepEqual(orphans, ['gamma']);
    for (const release of orphans) await helm.uninstall(release, ns);
    assert.deepEqual(await helm.list(ns), ['beta', 'kaddon']);
  });

  it('wraps a helm failure as a HelmError naming the release, the command and helm’s message', async (t) => {
    const ns = await namespaceFor(t, 'hd-error');
    const invalid = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Valid_Name\n';
    await assert.rejects(
      deliverModule({ module: 'broken', namespace: ns, manifest: invalid }, deps),
      (error: unknown) =>
        error instanceof HelmError &&
        error.release === 'broken' &&
        error.command.startsWith('upgrade --install broken ') &&
        error.message.includes('Not_A_Valid_Name'),
    );
  });

  it('applies crds/*.yaml with the extra labels, skipping filtered file names', async (t) => {
    const dir = await tempDir(t);
    await writeFile(path.join(dir, 'widgets.yaml'), crd('widgets', 'Widget'));
    await writeFile(path.join(dir, 'doc-gadgets.yaml'), crd('gadgets', 'Gadget'));
    await writeFile(path.join(dir, '_sprockets.yaml'), crd('sprockets', 'Sprocket'));
    await writeFile(path.join(dir, 'notes.txt'), 'not yaml');
    const options = {
      extraLabels: { heritage: 'addon-operator', team: 'core' },
      filterPrefixes: ['doc-', '_'],
    };
    assert.deepEqual(await applyCrds(dir, options, api), ['widgets.example.com']);
    assert.deepEqual(await applyCrds(dir, options, api), ['widgets.example.com']);
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const applied = await api.request('GET', `${crdPath}/widgets.example.com`);
    const metadata = isJsonObject(applied.metadata) ? applied.metadata : {};
    assert.deepEqual(metadata.labels, { heritage: 'addon-operator', team: 'core', own: 'label' });
    for (const skipped of ['gadgets', 'sprockets'])
      await assert.rejects(
        api.request('GET', `${crdPath}/${skipped}.example.com`),
        (error: unknown) => error instanceof KubeApiError && error.status === 404,
      );
    await api.request('DELETE', `${crdPath}/widgets.example.com`);
  });
});

describe('release charts and chart modules, offline', () => {
  it('helm sorts the slice into its install order and trims each document', async (t) => {
    const dir = await tempDir(t);
    const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n';
    const cm = configMap('settings', { a: "'{{ .Values.a }}'" });
    await writeReleaseChart(dir, 'echo-server', `${service}---\n\n${cm}\n\n---\n${namespace}`);
    const printed = await helm.template('echo-server', 'default', dir, {});
    assert.equal(`${printed}\n`, helmManifest('echo-server', [namespace, cm, service]));
  });

  it('renders a chart module without Chart.yaml as addon-operator synthesizes it, with values', async (t) => {
    const dir = await tempDir(t);
    await mkdir(path.join(dir, 'templates'));
    await mkdir(path.join(dir, 'hooks'));
    await writeFile(path.join(dir, 'values.yaml'), 'echoServer:\n  port: 8080\n');
    await writeFile(path.join(dir, 'hooks', 'broken.yaml'), '{{ this is not a template');
    await writeFile(
      path.join(dir, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}\n  namespace: {{ .Release.Namespace }}\n' +
        'data:\n  replicas: "{{ .Values.echoServer.replicas }}"\n  port: "{{ .Values.echoServer.port }}"\n' +
        '  domain: {{ .Values.global.clusterDomain }}\n',
    );
    const values = { global: { clusterDomain: 'cluster.local' }, echoServer: { replicas: 3 } };
    const rendered = await renderChartModule(dir, 'echo-server', 'kaddon', values, helm);
    assert.deepEqual(rendered.objects, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'echo-server', namespace: 'kaddon' },
        data: { replicas: '3', port: '8080', domain: 'cluster.local' },
      },
    ]);
    assert.match(rendered.manifest, /^---\n# Source: echo-server\/templates\/cm.yaml\n/);
  });

  it('renders a chart module with its own Chart.yaml', async (t) => {
    const dir = await tempDir(t);
    await mkdir(path.join(dir, 'templates'));
    await writeFile(path.join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: own-chart\nversion: 1.2.3\n');
    await writeFile(
      path.join(dir, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}-{{ .Release.Name }}\n',
    );
    const rendered = await renderChartModule(dir, 'mod', 'default', {}, helm);
    assert.deepEqual(rendered.objects, [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-chart-mod' } },
    ]);
  });
});

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kaddon-helm-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function crd(plural: string, kind: string): string {
  return crdYaml('example.com', plural, kind, { own: 'label' });
}

/**
 * A crash mid-operation, for real: helm runs a hook Job first and waits for it, and with no
 * controller-manager the Job never finishes; helm is killed once the release shows `state`.
 */
async function killHelmMidOperation(
  t: TestContext,
  release: string,
  namespace: string,
  hook: 'pre-install' | 'pre-upgrade',
  state: ReleaseState,
): Promise<void> {
  const dir = await tempDir(t);
  const job = `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: slow-${hook}\n  annotations:\n    helm.sh/hook: ${hook}\n    helm.sh/hook-delete-policy: before-hook-creation\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: wait\n        image: busybox\n`;
  await writeReleaseChart(dir, release, `${configMap('settings', { version: 'hung' })}---\n${job}`);
  const args = ['upgrade', '--install', release, dir, '--namespace', namespace, '--timeout', '300s'];
  const child = execa(helmPath, args, {
    env: { KUBECONFIG: cluster.kubeconfigPath },
    stdin: 'ignore',
    reject: false,
  });
  for (let attempt = 0; attempt < 300 && (await helm.status(release, namespace))?.status !== state; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGKILL');
  await child;
  assert.equal((await helm.status(release, namespace))?.status, state);
}
