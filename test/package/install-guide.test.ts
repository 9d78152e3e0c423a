import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { KubeApiError, KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ensureHelm, type HelmBinaries } from '../cluster/ensure-helm.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';
import { stringifyYamlStream } from '../../src/core/yaml/yaml.ts';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';

/**
 * docs/install.md, followed line by line: its overlay and its commands are read from the page
 * itself, so a step that breaks there fails here. The test cluster runs the controllers, so the
 * Deployment rolls out (its Pods are played by KWOK; no image is pulled).
 */
const guide = readFileSync(path.join(repoRoot, 'docs/install.md'), 'utf8');

/** The fenced blocks of a language, where each starts, their common indentation removed. */
function blocks(language: string): { text: string; at: number }[] {
  const fence = new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm');
  return [...guide.matchAll(fence)].map((match) => {
    const indent = match[1] ?? '';
    return { text: (match[2] ?? '').replace(new RegExp(`^${indent}`, 'gm'), ''), at: match.index };
  });
}

/** The first shell block after the line of the guide that holds `marker`. */
function commandsAfter(marker: string): string {
  const from = guide.indexOf(marker);
  assert.ok(from >= 0, `docs/install.md has no '${marker}'`);
  const block = blocks('sh').find(({ at }) => at > from);
  assert.ok(block, `no sh block after '${marker}'`);
  return block.text;
}

const overlayText = blocks('yaml').find(({ text }) =>
  text.startsWith('# my-kaddon/kustomization.yaml'),
)?.text;
const work = mkdtempSync(path.join(tmpdir(), 'kaddon-install-'));
let cluster: TestCluster;
let api: KubeClient;
let tools: HelmBinaries;

before(async () => {
  [cluster, tools] = await Promise.all([startTestCluster({ withControllers: true }), ensureHelm()]);
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  symlinkSync(repoRoot, path.join(work, 'kaddon'));
  mkdirSync(path.join(work, 'my-kaddon'));
  writeFileSync(path.join(work, 'my-kaddon/kustomization.yaml'), overlayText ?? '');
});
after(async () => {
  await cluster.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs a block of the guide with bash, `set -e`, kubectl and helm of the test cluster first on PATH. */
function run(commands: string): string {
  return execFileSync('bash', ['-euo', 'pipefail', '-c', commands], {
    cwd: work,
    encoding: 'utf8',
    timeout: 360_000,
    env: {
      ...process.env,
      KUBECONFIG: cluster.kubeconfigPath,
      PATH: `${path.dirname(tools.kubectl)}:${path.dirname(tools.helm)}:${process.env.PATH ?? ''}`,
    },
  });
}

async function get(apiPath: string): Promise<JsonObject | undefined> {
  try {
    const found = await api.request('GET', apiPath);
    return isJsonObject(found) ? found : undefined;
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** A release of one ConfigMap in namespace kaddon, as the operator would have left one. */
function installRelease(name: string): void {
  const chart = path.join(work, `chart-${name}`);
  mkdirSync(path.join(chart, 'templates'), { recursive: true });
  writeFileSync(path.join(chart, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
  writeFileSync(
    path.join(chart, 'templates/cm.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-delivered\n  namespace: default\n`,
  );
  run(`helm -n kaddon install ${name} ${chart}`);
}

const deletedOrGone = (obj: JsonObject | undefined): boolean =>
  obj === undefined || (isJsonObject(obj.metadata) && obj.metadata.deletionTimestamp !== undefined);

describe('docs/install.md, followed as written', () => {
  it('has the overlay the guide tells the user to write', () => {
    assert.ok(overlayText, 'a yaml block starting "# my-kaddon/kustomization.yaml"');
  });

  it('installs: the overlay applies, the image is the one it sets, and the Deployment rolls out', async () => {
    run(commandsAfter('3. **Apply it**'));
    const deployment = await get('/apis/apps/v1/namespaces/kaddon/deployments/kaddon');
    const spec = deployment?.spec as { replicas: number; template: { spec: { containers: JsonObject[] } } };
    assert.equal(spec.replicas, 2, 'high-availability: two replicas');
    const container = spec.template.spec.containers[0] ?? {};
    assert.equal(container.image, 'registry.example.com/platform/kaddon:0.1.0');
    const env = container.env as { name: string; valueFrom?: { configMapKeyRef?: { name: string } } }[];
    const gitUrl = env.find((variable) => variable.name === 'MODULES_GIT_URL');
    const configMapName = gitUrl?.valueFrom?.configMapKeyRef?.name ?? '';
    assert.match(configMapName, /^kaddon-git-/, 'the generated ConfigMap, hash suffix and all');
    const configMap = await get(`/api/v1/namespaces/kaddon/configmaps/${configMapName}`);
    assert.deepEqual(configMap?.data, { url: 'https://github.com/your-org/modules.git' });
  });

  it('kaddon diff finds the namespace of the install by itself and sees no change in what runs', async () => {
    const modules = path.join(work, 'modules');
    mkdirSync(path.join(modules, '010-app'), { recursive: true });
    writeFileSync(path.join(modules, 'values.yaml'), 'appEnabled: true\n');
    writeFileSync(path.join(modules, '010-app/kustomization.yaml'), 'resources: [cm.yaml]\n');
    writeFileSync(
      path.join(modules, '010-app/cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-settings}\ndata: {color: blue}\n',
    );
    const built = await runCli(['build', modules, '--module', 'app', '-o', 'json']);
    assert.equal(built.code, 0, built.stderr);
    const items = (JSON.parse(built.stdout) as { items: JsonObject[] }).items;
    const helm = new HelmClient({ helmPath: tools.helm, kubeconfigPath: cluster.kubeconfigPath });
    // Delivered as the operator delivers a module (it runs no container on the test cluster).
    await deliverModule(
      { module: 'app', namespace: 'kaddon', manifest: stringifyYamlStream(items) },
      { helm, timeoutSeconds: 60 },
    );
    const diff = await runCli(['diff', modules, '--kube-config', cluster.kubeconfigPath]);
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    assert.equal(diff.stdout, '');
    assert.equal(
      diff.stderr,
      "diff: namespace 'kaddon', which holds the operator's ConfigMap 'addon-operator'\n",
    );
  });

  it('uninstalls keeping what was delivered: the releases, their objects and the config stay', async () => {
    installRelease('kept');
    run(commandsAfter('**Remove kaddon and keep what it delivered**'));
    assert.equal(await get('/apis/apps/v1/namespaces/kaddon/deployments/kaddon'), undefined);
    assert.equal(await get('/api/v1/namespaces/kaddon/serviceaccounts/kaddon'), undefined);
    const namespace = await get('/api/v1/namespaces/kaddon');
    assert.ok(namespace && !deletedOrGone(namespace), 'namespace kaddon stays');
    assert.ok(await get('/api/v1/namespaces/kaddon/secrets/sh.helm.release.v1.kept.v1'), 'the release stays');
    assert.ok(await get('/api/v1/namespaces/default/configmaps/kept-delivered'), 'what it delivered stays');
    assert.ok(await get('/api/v1/namespaces/kaddon/configmaps/addon-operator'), 'the config values stay');
    assert.ok(await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modules.kaddon.dev'));
  });

  it('uninstalls everything: the releases and their objects are gone, then kaddon itself', async () => {
    run(commandsAfter('3. **Apply it**'));
    installRelease('removed');
    run(commandsAfter('**Remove kaddon and everything it delivered:**'));
    for (const release of ['kept', 'removed']) {
      assert.equal(
        await get(`/api/v1/namespaces/kaddon/secrets/sh.helm.release.v1.${release}.v1`),
        undefined,
      );
      assert.equal(await get(`/api/v1/namespaces/default/configmaps/${release}-delivered`), undefined);
    }
    assert.ok(deletedOrGone(await get('/api/v1/namespaces/kaddon')), 'namespace kaddon is deleted');
    assert.equal(
      await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/modules.kaddon.dev'),
      undefined,
    );
  });
});
