import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { JsonObject } from '../../src/core/json.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { loadJqEngine } from '../../src/jq/jq-engine.ts';
import { loadModulesTree } from '../../src/loader/modules-tree.ts';
import { renderTreeWithCharts } from '../../src/runtime/build/render-charts.ts';
import { renderTree } from '../../src/runtime/build/render-tree.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { runCli } from '../run-cli.ts';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';

/** One printed document: its `# module:` and `# source:` markers and the object. */
interface Doc {
  readonly module: string;
  readonly source: string;
  readonly obj: unknown;
}

function documents(stdout: string): Doc[] {
  return stdout
    .split(/^---\n/m)
    .filter((text) => text.trim() !== '')
    .map((text) => ({
      module: /^# module: (\S+)$/m.exec(text)?.[1] ?? '',
      source: /^# source: (.+)$/m.exec(text)?.[1] ?? '',
      obj: parseAllDocuments(text)[0]?.toJS() as unknown,
    }));
}

/** A path as kaddon prints it: relative to the working directory when inside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
}

const example = path.join(repoRoot, 'examples/chart-module/modules');
const exampleShown = shown(example);
const tmp = makeTempTree('chart-modules');
let helmPath: string;

before(async () => {
  helmPath = (await ensureHelm()).helm;
});
after(() => {
  tmp.remove();
});

const labels = { 'app.kubernetes.io/instance': 'web', 'app.kubernetes.io/name': 'web' };

describe('kaddon build with chart modules', () => {
  it('renders a chart with the module values and composes it with a later Component module', async () => {
    const run = await runCli(['build', example, '--helm-path', helmPath, '--namespace', 'apps']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(documents(run.stdout), [
      {
        module: 'web',
        source: path.join(exampleShown, '010-web/templates/service.yaml'),
        obj: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { labels: { ...labels, 'example.com/team': 'platform' }, name: 'web', namespace: 'apps' },
          spec: { ports: [{ port: 80, targetPort: 8080 }], selector: labels },
        },
      },
      {
        module: 'web',
        source: path.join(exampleShown, '010-web/templates/deployment.yaml'),
        obj: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { labels: { ...labels, 'example.com/team': 'platform' }, name: 'web', namespace: 'apps' },
          spec: {
            replicas: 2,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                containers: [
                  {
                    image: 'registry.example.com/nginx:1.27',
                    name: 'web',
                    ports: [{ containerPort: 8080 }],
                  },
                ],
                securityContext: { runAsNonRoot: true },
              },
            },
          },
        },
      },
      {
        module: 'hello',
        source: path.join(exampleShown, '020-hello/templates/configmap.yaml'),
        obj: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { labels: { 'example.com/team': 'platform' }, name: 'hello', namespace: 'apps' },
          data: { greeting: 'hello', url: 'http://web.apps.svc.cluster.local' },
        },
      },
    ]);
  });

  it('renders with config values, and the Component module’s changes go when it is disabled', async () => {
    const dir = tmp.write('config', {
      'config.yaml': 'policyEnabled: "false"\nweb: |\n  replicas: 5\nglobal: |\n  registry: mirror.local\n',
    });
    const run = await runCli([
      'build',
      example,
      '--helm-path',
      helmPath,
      '--config-values',
      path.join(dir, 'config.yaml'),
      '--module',
      'web',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const deployment = documents(run.stdout)[1]?.obj as {
      metadata: { labels: Record<string, string>; namespace: string };
      spec: { replicas: number; template: { spec: Record<string, unknown> } };
    };
    assert.equal(deployment.spec.replicas, 5);
    assert.equal(deployment.metadata.namespace, 'default');
    assert.deepEqual(deployment.metadata.labels, labels);
    assert.equal(deployment.spec.template.spec.securityContext, undefined);
    assert.match(run.stdout, /image: mirror\.local\/nginx:1\.27/);
  });

  it('renders a templates/-only module as the chart addon-operator synthesizes, hooks/ left out', async () => {
    const dir = tmp.write('synthesized', {
      'values.yaml': 'cacheEnabled: true\n',
      '010-cache/values.yaml': 'cache:\n  size: 64\n',
      '010-cache/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Chart.Name }}-{{ .Chart.Version }}\n' +
        'data:\n  size: "{{ .Values.cache.size }}"\n  release: {{ .Release.Name }}\n',
      '010-cache/hooks/broken.yaml': '{{ this is not a template',
    });
    const run = await runCli(['build', dir, '--helm-path', helmPath]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(documents(run.stdout), [
      {
        module: 'cache',
        source: shown(path.join(dir, '010-cache/templates/cm.yaml')),
        obj: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'cache-0.2.0' },
          data: { size: '64', release: 'cache' },
        },
      },
    ]);
  });

  it('names the module and its template file when helm cannot render the chart', async () => {
    const dir = tmp.write('broken', {
      'values.yaml': 'brokenEnabled: true\n',
      '010-broken/Chart.yaml': 'apiVersion: v2\nname: some-chart\nversion: 1.0.0\n',
      '010-broken/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: {{ .Values.broken.x | nope }}\n',
    });
    const run = await runCli(['build', dir, '--helm-path', helmPath]);
    assert.equal(run.code, 1);
    const file = shown(path.join(dir, '010-broken/templates/cm.yaml'));
    assert.ok(
      run.stderr.startsWith(`Error: module 'broken': `) && run.stderr.includes(`${file}:6`),
      run.stderr,
    );
    assert.match(run.stderr, /function "nope" not defined/);
  });

  it('checks the chart module’s values against x-required-for-helm before rendering', async () => {
    const dir = tmp.write('required', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/openapi/values.yaml':
        'type: object\nx-required-for-helm: [host]\nproperties:\n  host: {type: string}\n',
      '010-app/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
    });
    const run = await runCli(['build', dir, '--helm-path', helmPath]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /app.*must have required property 'host'/);
  });

  it('passes Go template syntax in a Kustomization module through untouched, needing no helm', async () => {
    const template = '{{ .Values.app.name }}';
    const dir = tmp.write('kustomization-beside-templates', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- templates/cm.yaml\n',
      '010-app/templates/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  quoted: "${template}"\n  block: |\n    name: ${template}\n`,
    });
    const run = await runCli(['build', dir, '--helm-path', path.join(dir, 'no-helm-here')]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      documents(run.stdout).map((doc) => doc.obj),
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'cm' },
          data: { quoted: template, block: `name: ${template}\n` },
        },
      ],
    );
  });

  it('renders a module with a kustomization and a Chart.yaml from its kustomization, with a warning', async () => {
    const dir = tmp.write('both', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '010-app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kustomization\n',
      '010-app/Chart.yaml': 'apiVersion: v2\nname: app\nversion: 1.0.0\n',
    });
    const run = await runCli(['build', dir, '--helm-path', path.join(dir, 'no-helm-here')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /name: from-kustomization/);
    assert.match(run.stderr, /warning: module 'app': .* has a kustomization and a Chart\.yaml/);
  });

  it('needs no helm with the chart renderer (the default)', async () => {
    const run = await runCli(['build', example, '--helm-path', path.join(tmp.root, 'no-helm-here')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^# source: .*010-web\/templates\/deployment\.yaml$/m);
  });

  it('says which module needs helm and how to provide it when there is none (--chart-renderer helm)', async () => {
    const missing = path.join(tmp.root, 'no-helm-here');
    const run = await runCli(['build', example, '--chart-renderer', 'helm', '--helm-path', missing]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `Error: module 'web': ${path.join(exampleShown, '010-web')} is a Helm chart module and rendering it needs helm (so do 'hello'), but '${missing}' (--helm-path) is not an executable file. ` +
        'Install helm 3 or 4 (https://helm.sh/docs/intro/install/), or point --helm-path or HELM_BIN_PATH at the helm binary.\n',
    );
  });
});

describe('renderTreeWithCharts (the operator’s render)', () => {
  it('renders the enabled chart modules with their helm values, then the tree', async () => {
    const tree = loadModulesTree([example]);
    const jq = await loadJqEngine();
    const views: Record<string, JsonObject> = {
      web: { global: { registry: 'r.local' }, web: { replicas: 1, image: 'app:1', port: 80 } },
      policy: { global: {}, policy: { team: 'ops' } },
    };
    const input = {
      tree,
      values: { enabledModules: ['web', 'policy'], viewFor: (name: string) => views[name] ?? {} },
      sharedComponentRoots: [],
      jq,
    };
    assert.throws(() => renderTree(input), /module 'web': .* its chart was not rendered/);
    const result = await renderTreeWithCharts(input, {
      helm: new HelmClient({ helmPath }),
      namespace: 'kaddon',
      helmValues: (name) => views[name] ?? {},
    });
    assert.deepEqual([...result.rendered.slices.keys()], ['web', 'policy']);
    const deployment = result.rendered.slices.get('web')?.find((resource) => resource.kind === 'Deployment');
    assert.ok(deployment);
    assert.equal(deployment.owner, 'web');
    assert.deepEqual(deployment.obj.metadata, {
      labels: { ...labels, 'example.com/team': 'ops' },
      name: 'web',
      namespace: 'kaddon',
    });
  });
});
