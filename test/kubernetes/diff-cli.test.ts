import assert from 'node:assert/strict';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/json.ts';
import { stringifyYamlStream } from '../../src/core/yaml/yaml.ts';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { findFreePort } from '../cluster/free-port.ts';
import { killOperatorTree, startE2eOperator, waitReady } from '../operator/operator-e2e-kit.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';
import { runCli } from '../run-cli.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';

const NAMESPACE = 'diff-cli';
let cluster: TestCluster;
let api: KubeClient;
let helm: HelmClient;
let helmPath: string;
let tree: TempTree;
let modulesDir: string;

/** `app` (a ConfigMap from values, a Secret, a second ConfigMap) and `other` (one ConfigMap). */
function writeTree(): void {
  modulesDir = tree.write('modules', {
    'values.yaml': 'appEnabled: true\notherEnabled: true\nfreshEnabled: true\n',
    '010-app/kustomization.yaml': 'resources: [config.yaml, secret.yaml, token.yaml, extra.yaml]\n',
    '010-app/values.yaml': 'app:\n  color: blue\n  token: s3cr3t-one\n',
    '010-app/token.yaml':
      'apiVersion: v1\nkind: Secret\nmetadata: {name: app-token}\nstringData:\n  token: $(app.token)\n',
    '010-app/config.yaml': configMap('app-config', { color: '$(app.color)', size: 'small' }),
    '010-app/secret.yaml': [
      'apiVersion: v1',
      'kind: Secret',
      'metadata: {name: app-secret}',
      'data:',
      `  password: ${Buffer.from('hunter2').toString('base64')}`,
      `  user: ${Buffer.from('admin').toString('base64')}`,
      '',
    ].join('\n'),
    '010-app/extra.yaml': configMap('app-extra', { kept: 'yes' }),
    '020-other/kustomization.yaml': 'resources: [config.yaml]\n',
    '020-other/config.yaml': configMap('other-config', { a: 'b' }),
  });
}

function configMap(name: string, data: Record<string, string>): string {
  const lines = Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`);
  return ['apiVersion: v1', 'kind: ConfigMap', `metadata: {name: ${name}}`, 'data:', ...lines, ''].join('\n');
}

/** Delivers the module's slice as the operator does (deliverModule, helm upgrade --install). */
async function deliver(module: string): Promise<void> {
  const built = await runCli(['build', modulesDir, '--module', module, '-o', 'json']);
  assert.equal(built.code, 0, built.stderr);
  const items = (JSON.parse(built.stdout) as { items: JsonObject[] }).items;
  await deliverModule(
    { module, namespace: NAMESPACE, manifest: stringifyYamlStream(items) },
    { helm, timeoutSeconds: 60 },
  );
}

function diff(...extra: string[]): ReturnType<typeof runCli> {
  return runCli([
    'diff',
    modulesDir,
    '--kube-config',
    cluster.kubeconfigPath,
    '--namespace',
    NAMESPACE,
    ...extra,
  ]);
}

/** Every object's resourceVersion in the namespace: nothing a diff does may change one. */
async function versions(): Promise<string> {
  const out: string[] = [];
  for (const kind of ['configmaps', 'secrets']) {
    const list = await api.request('GET', `/api/v1/namespaces/${NAMESPACE}/${kind}`);
    for (const item of (list.items as JsonObject[] | undefined) ?? []) {
      const metadata = item.metadata as { name: string; resourceVersion: string };
      out.push(`${kind}/${metadata.name}@${metadata.resourceVersion}`);
    }
  }
  return out.sort().join(' ');
}

before(async () => {
  helmPath = (await ensureHelm()).helm;
  cluster = await startTestCluster();
  api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  helm = new HelmClient({ helmPath, kubeconfigPath: cluster.kubeconfigPath });
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
  tree = makeTempTree('diff-cli');
  writeTree();
  await deliver('app');
  await deliver('other');
});
after(async () => {
  await cluster.stop();
  tree.remove();
});

describe('kaddon diff against the cluster', () => {
  it('prints nothing and exits 0 when the tree is what runs', async () => {
    const result = await diff();
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, '');
    assert.equal(result.code, 0);
  });

  it('shows exactly a changed value, exits 2, and changes nothing in the cluster', async () => {
    const before = await versions();
    const valuesFile = path.join(tree.root, 'green.yaml');
    writeFileSync(valuesFile, 'app:\n  color: green\n');
    const result = await diff('--values', valuesFile);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stdout, /module app: would be upgraded/);
    assert.match(result.stdout, /~ ConfigMap diff-cli\/app-config would be changed/);
    const changed = result.stdout.split('\n').filter((line) => /^ {4}[-+](?![-+])/.test(line));
    assert.deepEqual(changed, ['    -  color: blue', '    +  color: green']);
    assert.doesNotMatch(result.stdout, /other/);
    assert.equal(await versions(), before);
  });

  it('lists an object no longer rendered as deleted and a module without a release as installed', async () => {
    tree.write('modules', {
      '010-app/kustomization.yaml': 'resources: [config.yaml, secret.yaml, token.yaml]\n',
      '030-fresh/kustomization.yaml': 'resources: [config.yaml]\n',
      '030-fresh/config.yaml': configMap('fresh-config', { x: 'y' }),
    });
    try {
      const result = await diff('-o', 'json');
      assert.equal(result.code, 2, result.stderr);
      const report = JSON.parse(result.stdout) as {
        changed: boolean;
        modules: { module: string; action: string; changes: { action: string; name: string }[] }[];
      };
      assert.equal(report.changed, true);
      const byModule = new Map(report.modules.map((entry) => [entry.module, entry]));
      assert.equal(byModule.get('app')?.action, 'upgrade');
      assert.deepEqual(
        byModule.get('app')?.changes.map((change) => `${change.action} ${change.name}`),
        ['delete app-extra'],
      );
      assert.equal(byModule.get('fresh')?.action, 'install');
      assert.deepEqual(
        byModule.get('fresh')?.changes.map((change) => `${change.action} ${change.name}`),
        ['create fresh-config'],
      );
      assert.equal(byModule.get('other')?.action, 'unchanged');
    } finally {
      rmSync(path.join(modulesDir, '030-fresh'), { recursive: true });
      writeTree();
    }
  });

  it('names the changed key of a Secret and shows no value', async () => {
    tree.write('modules', {
      '010-app/secret.yaml': [
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {name: app-secret}',
        'data:',
        `  password: ${Buffer.from('correct horse').toString('base64')}`,
        `  user: ${Buffer.from('admin').toString('base64')}`,
        '',
      ].join('\n'),
    });
    const result = await diff();
    writeTree();
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stdout, /~ Secret diff-cli\/app-secret would be changed/);
    assert.match(result.stdout, /- {2}password: '\*\*\* \(before\)'/);
    assert.match(result.stdout, /\+ {2}password: '\*\*\* \(after\)'/);
    for (const secret of ['hunter2', 'correct horse', 'admin'])
      assert.ok(!result.stdout.includes(Buffer.from(secret).toString('base64')), secret);
  });

  it('names a changed stringData key of a Secret beside the ConfigMap, and shows no value', async () => {
    const valuesFile = path.join(tree.root, 'token.yaml');
    writeFileSync(valuesFile, 'app:\n  color: green\n  token: s3cr3t-two\n');
    const result = await diff('--values', valuesFile);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stdout, /~ ConfigMap diff-cli\/app-config would be changed/);
    assert.match(result.stdout, /~ Secret diff-cli\/app-token would be changed/);
    const token = result.stdout.slice(result.stdout.indexOf('Secret diff-cli/app-token'));
    assert.match(token, /- {2}token: '\*\*\* \(before\)'/);
    assert.match(token, /\+ {2}token: '\*\*\* \(after\)'/);
    for (const secret of ['s3cr3t-one', 's3cr3t-two'])
      for (const form of [secret, Buffer.from(secret).toString('base64')])
        assert.ok(!result.stdout.includes(form), form);
  });

  it('reads the config values from the operator ConfigMap unless told not to', async () => {
    await api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'addon-operator' },
        data: { otherEnabled: 'false' },
      },
    });
    try {
      const result = await diff('-o', 'json');
      assert.equal(result.code, 2, result.stderr);
      const report = JSON.parse(result.stdout) as { modules: { module: string; action: string }[] };
      assert.deepEqual(
        report.modules.map((entry) => `${entry.module} ${entry.action}`),
        ['app unchanged', 'other uninstall'],
      );
      const without = await diff('--no-cluster-config');
      assert.equal(without.code, 0, without.stdout + without.stderr);
      // Without --namespace: the one namespace that holds the operator's ConfigMap.
      const found = await runCli(['diff', modulesDir, '--kube-config', cluster.kubeconfigPath, '-o', 'json']);
      assert.equal(found.code, 2, found.stderr);
      assert.equal(
        found.stderr,
        "diff: namespace 'diff-cli', which holds the operator's ConfigMap 'addon-operator'\n",
      );
      assert.equal(found.stdout, result.stdout);
    } finally {
      await api.request('DELETE', `/api/v1/namespaces/${NAMESPACE}/configmaps/addon-operator`);
    }
  });

  it('refuses to guess the namespace when no namespace holds the operator ConfigMap', async () => {
    const result = await runCli(['diff', modulesDir, '--kube-config', cluster.kubeconfigPath]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /no namespace holds the operator's ConfigMap 'addon-operator'\. Name the namespace kaddon runs in with --namespace/,
    );
  });

  it("leaves out what the module's drift.ignore leaves out, as drift detection does", async () => {
    const valuesFile = path.join(tree.root, 'green.yaml');
    writeFileSync(valuesFile, 'app:\n  color: green\n');
    const manifest = path.join(modulesDir, '010-app/module.yaml');
    writeFileSync(
      manifest,
      'drift:\n  ignore:\n  - paths: [/data/color]\n    target: {kind: ConfigMap, name: app-config}\n',
    );
    try {
      const result = await diff('--values', valuesFile);
      assert.equal(result.code, 0, result.stdout + result.stderr);
    } finally {
      rmSync(manifest);
    }
  });

  it('says that the modules directory is missing before it asks anything of the cluster', async () => {
    const result = await runCli([
      'diff',
      path.join(tree.root, 'no-such-dir'),
      '--kube-config',
      '/nonexistent',
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no-such-dir.*the modules directory does not exist/);
  });

  it('exits 1 with the usual message for a broken tree, and for a bad flag', async () => {
    tree.write('modules', { '020-other/kustomization.yaml': 'resources: [missing.yaml]\n' });
    const result = await diff();
    writeTree();
    assert.equal(result.code, 1);
    assert.match(result.stderr, /missing\.yaml/);
    const usage = await diff('--output', 'xml');
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /--output must be text or json/);
  });
});

const HOOKED = 'diff-hooks';

/**
 * A module as examples/platform's greeter: its hook turns `greeter.size` into replicas and a
 * high-availability flag, a $(var) and a component condition use them, schema defaults stand in
 * without the hook.
 */
function writeHookedTree(message: string): string {
  const dir = tree.write('hooked', {
    'values.yaml': 'greeterEnabled: true\n',
    '010-greeter/values.yaml': `greeter:\n  size: large\n  message: ${message}\n`,
    '010-greeter/openapi/values.yaml': [
      'type: object',
      'properties:',
      '  size: {type: string}',
      '  message: {type: string}',
      '  internal:',
      '    type: object',
      '    default: {}',
      '    properties:',
      '      replicas: {type: integer, default: 1}',
      '      highAvailability: {type: boolean, default: false}',
      '',
    ].join('\n'),
    '010-greeter/kustomization.yaml': [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `namespace: ${HOOKED}`,
      'resources: [deployment.yaml]',
      'components:',
      '- path: components/disruption-budget',
      '  when: .greeter.internal.highAvailability',
      '',
    ].join('\n'),
    '010-greeter/deployment.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: greeter}',
      'spec:',
      '  replicas: $(greeter.internal.replicas)',
      '  selector: {matchLabels: {app: greeter}}',
      '  template:',
      '    metadata: {labels: {app: greeter}}',
      '    spec:',
      '      containers:',
      '      - {name: greeter, image: greeter:1, args: ["-text=$(greeter.message)"]}',
      '',
    ].join('\n'),
    '010-greeter/components/disruption-budget/kustomization.yaml':
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [pdb.yaml]\n',
    '010-greeter/components/disruption-budget/pdb.yaml': [
      'apiVersion: policy/v1',
      'kind: PodDisruptionBudget',
      'metadata: {name: greeter}',
      'spec:',
      '  minAvailable: 1',
      '  selector: {matchLabels: {app: greeter}}',
      '',
    ].join('\n'),
    '010-greeter/hooks/compute-settings.mjs': [
      '#!/usr/bin/env node',
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "if (process.argv[2] === '--config') {",
      "  console.log(JSON.stringify({ configVersion: 'v1', beforeHelm: 10 }));",
      '  process.exit(0);',
      '}',
      "const values = JSON.parse(readFileSync(process.env.VALUES_PATH, 'utf8'));",
      'const replicas = { small: 1, medium: 2, large: 3 }[values.greeter.size] ?? 1;',
      "const patch = [{ op: 'add', path: '/greeter/internal', value: { replicas, highAvailability: replicas > 1 } }];",
      'writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify(patch));',
      '',
    ].join('\n'),
  });
  chmodSync(path.join(dir, '010-greeter/hooks/compute-settings.mjs'), 0o755);
  return dir;
}

describe('kaddon diff of a module whose values come from its hook', () => {
  let hookedDir: string;
  before(async () => {
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOOKED } },
    });
    hookedDir = writeHookedTree('hello');
    const port = await findFreePort();
    const operator = startE2eOperator({
      modulesDir: hookedDir,
      namespace: HOOKED,
      kubeconfigPath: cluster.kubeconfigPath,
      helmPath,
      workDir: tree.write('operator', {}),
      port,
      forceKillAfterDelay: 5000,
    });
    try {
      await waitReady(operator, port);
    } finally {
      // diff needs no running operator.
      await killOperatorTree(operator);
    }
  });

  function hookedDiff(...extra: string[]): ReturnType<typeof runCli> {
    return runCli([
      'diff',
      hookedDir,
      '--kube-config',
      cluster.kubeconfigPath,
      '--namespace',
      HOOKED,
      ...extra,
    ]);
  }

  it('prints nothing and exits 0 right after the operator delivered it, without --run-hooks', async () => {
    const result = await hookedDiff();
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, '');
    assert.equal(result.code, 0);
    const withHooks = await hookedDiff('--run-hooks');
    assert.equal(withHooks.stdout, '');
    assert.equal(withHooks.code, 0, withHooks.stderr);
  });

  it('shows only the field a changed value in the tree changes', async () => {
    writeHookedTree('bonjour');
    try {
      const result = await hookedDiff();
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stdout, /~ Deployment diff-hooks\/greeter would be changed/);
      const changed = result.stdout.split('\n').filter((line) => /^ {4}[-+](?![-+])/.test(line));
      assert.equal(changed.length, 2, result.stdout);
      assert.match(changed[0] ?? '', /^ {4}-.*-text=hello/);
      assert.match(changed[1] ?? '', /^ {4}\+.*-text=bonjour/);
      assert.doesNotMatch(result.stdout, /PodDisruptionBudget|replicas/);
    } finally {
      writeHookedTree('hello');
    }
  });
});
