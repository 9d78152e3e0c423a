import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../run-cli.ts';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';

interface Doc {
  module: string;
  source: string;
  obj: Record<string, unknown> & {
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
  };
}

/** Splits `kaddon build` output into documents with their module and source markers. */
function documents(stdout: string): Doc[] {
  return stdout
    .split(/^---\n/m)
    .filter((text) => text.trim() !== '')
    .map((text) => ({
      module: /^# module: (\S+)$/m.exec(text)?.[1] ?? '',
      source: /^# source: (.+)$/m.exec(text)?.[1] ?? '',
      obj: parse(text) as Doc['obj'],
    }));
}

function find(docs: readonly Doc[], kind: string, name: string): Doc {
  const doc = docs.find((d) => d.obj.kind === kind && d.obj.metadata.name.startsWith(name));
  assert.ok(doc, `no ${kind}/${name} in the output`);
  return doc;
}

const platform = path.join(repoRoot, 'examples/platform/modules');
const tmp = makeTempTree('build');
after(() => {
  tmp.remove();
});

describe('kaddon build on the example platform', () => {
  it('renders every enabled module in order, each document marked with module and source', async () => {
    const run = await runCli(['build', platform]);
    assert.equal(run.code, 0, run.stderr);
    const docs = documents(run.stdout);
    const order = [...new Set(docs.map((d) => d.module))];
    assert.deepEqual(order, [
      'echo-server',
      'redis',
      'prometheus',
      'nightly-report',
      'greeter',
      'platform-policy',
    ]);
    assert.match(find(docs, 'Deployment', 'echo-server').source, /010-echo-server\/deployment\.yaml/);
    assert.equal(
      docs.some((d) => d.module === 'debug-tools'),
      false,
      'debugToolsEnabled: false is not rendered',
    );
  });

  it('expands $(var): a plain reference keeps the type, a quoted one stays a string', async () => {
    const docs = documents(
      (
        await runCli([
          'build',
          platform,
          '--values',
          writeValues({ echoServer: { highAvailability: false } }),
        ])
      ).stdout,
    );
    const deployment = find(docs, 'Deployment', 'echo-server').obj as unknown as DeploymentShape;
    assert.equal(deployment.spec.replicas, 1);
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container);
    assert.equal(container.ports[0]?.containerPort, 8080);
    assert.deepEqual(
      container.env.find((e) => e.name === 'PORT'),
      { name: 'PORT', value: '8080' },
    );
    assert.equal(container.image, 'registry.example.com/ealen/echo-server:0.9.2');
  });

  it('applies a conditional component only when its jq condition holds', async () => {
    const withHa = documents((await runCli(['build', platform])).stdout);
    assert.equal(
      (find(withHa, 'Deployment', 'echo-server').obj as unknown as DeploymentShape).spec.replicas,
      3,
    );
    const debugOn = documents(
      (await runCli(['build', platform, '--values', writeValues({ echoServer: { debug: true } })])).stdout,
    );
    const env = (find(debugOn, 'Deployment', 'echo-server').obj as unknown as DeploymentShape).spec.template
      .spec.containers[0]?.env;
    assert.ok(env?.some((e) => e.name === 'LOG_LEVEL'));
  });

  it('lets a Component module patch other modules, and the change stays in their slices', async () => {
    const docs = documents((await runCli(['build', platform])).stdout);
    const redis = find(docs, 'StatefulSet', 'redis');
    assert.equal(redis.module, 'redis');
    assert.equal(redis.obj.metadata.labels?.['platform.example.com/owner'], 'platform');
    const spec = (redis.obj as unknown as DeploymentShape).spec.template.spec;
    assert.equal(spec.priorityClassName, 'platform-workloads');
    assert.equal(find(docs, 'PriorityClass', 'platform-workloads').module, 'platform-policy');
  });

  it('takes a disabled cross-cutting module’s patches away from the other modules', async () => {
    const config = tmp.write('config-off', { 'config.yaml': 'platformPolicyEnabled: "false"\n' });
    const run = await runCli(['build', platform, '--config-values', path.join(config, 'config.yaml')]);
    const docs = documents(run.stdout);
    assert.equal(
      docs.some((d) => d.module === 'platform-policy'),
      false,
    );
    assert.equal(
      find(docs, 'StatefulSet', 'redis').obj.metadata.labels?.['platform.example.com/owner'],
      undefined,
    );
  });

  it('enables a module from config values and prints one module with --module', async () => {
    const config = tmp.write('config-on', {
      'config.yaml': 'debugToolsEnabled: "true"\nglobal: |\n  registry: mirror.local\n',
    });
    const run = await runCli([
      'build',
      platform,
      '--config-values',
      path.join(config, 'config.yaml'),
      '--module',
      'debug-tools',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const docs = documents(run.stdout);
    assert.deepEqual(
      docs.map((d) => `${d.module} ${d.obj.kind}/${d.obj.metadata.name}`),
      ['debug-tools Pod/netshoot'],
    );
    assert.match(run.stdout, /image: mirror\.local\/nicolaka\/netshoot/);
  });

  it('keeps a resource with the opt-out annotation as written, and $$ as a literal $', async () => {
    const docs = documents((await runCli(['build', platform])).stdout);
    const script = find(docs, 'ConfigMap', 'nightly-report-script').obj as unknown as {
      data: Record<string, string>;
    };
    assert.match(script.data['report.sh'] ?? '', /\$\(date \+%F\) on \$HOSTNAME/);
    const redis = find(docs, 'StatefulSet', 'redis').obj as unknown as DeploymentShape;
    assert.deepEqual(redis.spec.template.spec.containers[0]?.args, ['--requirepass', '$(REDIS_PASSWORD)']);
  });

  it('keeps redis on an emptyDir unless persistence is on, and names a StorageClass only when given', async () => {
    const claimOf = async (values?: unknown) => {
      const args = ['build', platform, '--module', 'redis'];
      const run = await runCli(values === undefined ? args : [...args, '--values', writeValues(values)]);
      assert.equal(run.code, 0, run.stderr);
      return find(documents(run.stdout), 'StatefulSet', 'redis').obj as unknown as StatefulSetShape;
    };
    const plain = await claimOf();
    assert.deepEqual(plain.spec.template.spec.volumes, [{ name: 'data', emptyDir: {} }]);
    assert.equal(plain.spec.volumeClaimTemplates, undefined);

    const persistent = await claimOf({ redis: { persistence: { enabled: true, size: '5Gi' } } });
    assert.deepEqual(persistent.spec.template.spec.volumes, []);
    const claim = persistent.spec.volumeClaimTemplates?.[0];
    assert.ok(claim);
    assert.equal(claim.metadata.name, 'data');
    assert.deepEqual(claim.spec.resources, { requests: { storage: '5Gi' } });
    assert.equal('storageClassName' in claim.spec, false, "the cluster's default StorageClass applies");

    const named = await claimOf({
      global: { storageClass: 'fast' },
      redis: { persistence: { enabled: true } },
    });
    assert.equal(named.spec.volumeClaimTemplates?.[0]?.spec.storageClassName, 'fast');
  });

  it('prints a List with -o json', async () => {
    const run = await runCli(['build', platform, '-o', 'json']);
    const list = JSON.parse(run.stdout) as { kind: string; items: unknown[] };
    assert.equal(list.kind, 'List');
    assert.equal(list.items.length, documents((await runCli(['build', platform])).stdout).length);
  });
});

interface DeploymentShape {
  spec: {
    replicas: number;
    template: {
      spec: {
        priorityClassName?: string;
        containers: {
          image: string;
          args?: string[];
          env: { name: string; value?: string }[];
          ports: { containerPort: number }[];
        }[];
      };
    };
  };
}

interface StatefulSetShape {
  spec: {
    template: { spec: { volumes?: unknown[] } };
    volumeClaimTemplates?: {
      metadata: { name: string };
      spec: { resources: unknown; storageClassName?: string };
    }[];
  };
}

function writeValues(values: unknown): string {
  const dir = tmp.write(`values-${Math.random().toString(36).slice(2)}`, {
    'values.yaml': JSON.stringify(values),
  });
  return path.join(dir, 'values.yaml');
}

const configMap = (name: string, data: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${data}\n`;

describe('kaddon build diagnostics', () => {
  it('warns about an unresolved reference, and fails on it with --strict', async () => {
    const dir = tmp.write('unresolved', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '010-app/cm.yaml': configMap('cm', 'host: $(app.missing)'),
    });
    const lenient = await runCli(['build', dir]);
    assert.equal(lenient.code, 0);
    assert.match(lenient.stderr, /010-app\/cm\.yaml:\d+ \$\(app\.missing\) is unresolved/);
    assert.match(lenient.stdout, /host: \$\(app\.missing\)/);
    const strict = await runCli(['build', dir, '--strict']);
    assert.equal(strict.code, 1);
    assert.equal(strict.stdout, '');
    assert.match(strict.stderr, /module 'app' .*cm\.yaml:\d+ \$\(app\.missing\)/);
  });

  it('does not count kustomize vars as unresolved values', async () => {
    const dir = tmp.write('kvars', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml':
        'resources:\n- pod.yaml\nvars:\n- name: POD_NAME\n  objref: {apiVersion: v1, kind: Pod, name: p}\n',
      '010-app/pod.yaml':
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n    args: ["$(POD_NAME)"]\n',
    });
    const run = await runCli(['build', dir, '--strict']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /- p\n/);
  });

  it('names the file of unparsable YAML', async () => {
    const dir = tmp.write('badyaml', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '010-app/cm.yaml': 'kind: ConfigMap\nmetadata: {name: [\n',
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /010-app\/cm\.yaml:\d+/);
  });

  it('refuses a directory that holds no module, and points a kustomization at kaddon kustomize', async () => {
    const empty = tmp.write('no-modules', { 'README.md': 'not a modules tree\n' });
    const run = await runCli(['build', empty]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /modules tree '.*no-modules': it holds no module directory\. Point at the directory/,
    );
    const kustomization = tmp.write('a-kustomization', {
      'kustomization.yaml': 'resources:\n- cm.yaml\n',
      'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
    });
    const second = await runCli(['build', kustomization]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /It is a kustomization: build it with `kaddon kustomize DIR`\./);
  });

  it('warns when no module of the tree is enabled', async () => {
    const dir = tmp.write('none-enabled', { '010-app/kustomization.yaml': 'resources: []\n' });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /warning: none of the 1 module\(s\) is enabled, so nothing is rendered/);
  });

  it('refuses a module directory whose name is not kebab-case', async () => {
    const dir = tmp.write('badname', { '010-Bad_Name/kustomization.yaml': 'resources: []\n' });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /010-Bad_Name': 'Bad_Name' is not a valid module name/);
  });

  it('refuses a kustomization that reaches outside the modules tree through a symlink', async () => {
    const outside = tmp.write('outside', {
      'kustomization.yaml': 'resources:\n- cm.yaml\n',
      'cm.yaml': configMap('x', 'a: b'),
    });
    const dir = tmp.write('escape', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- base\n',
    });
    symlinkSync(outside, path.join(dir, '010-app/base'));
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /outside the allowed roots/);
  });

  it('names the kustomization of a bad `when` expression and of an unknown shared component', async () => {
    const dir = tmp.write('badwhen', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml':
        'resources:\n- cm.yaml\ncomponents:\n- shared: high-availability\n  when: .app[\n',
      '010-app/cm.yaml': configMap('cm', 'a: b'),
    });
    const bad = await runCli(['build', dir]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /010-app\/kustomization\.yaml: components when: jq expression '\.app\['/);
    const unknown = tmp.write('unknownshared', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\ncomponents:\n- shared: no-such-thing\n',
      '010-app/cm.yaml': configMap('cm', 'a: b'),
    });
    const missing = await runCli(['build', unknown]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /shared component 'no-such-thing' not found/);
  });

  it('refuses a shared component name that is a path', async () => {
    const dir = tmp.write('sharedpath', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- cm.yaml\ncomponents:\n- shared: ../../etc\n',
      '010-app/cm.yaml': configMap('cm', 'a: b'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /is not a plain name/);
  });

  it('merges enabled flags (docs/lifecycle.md step 4): the module values.yaml overrides the root', async () => {
    const dir = tmp.write('flags', {
      'values.yaml': 'nginxIngressEnabled: true\n',
      '001-nginx-ingress/values.yaml': 'nginxIngressEnabled: false\n',
      '001-nginx-ingress/kustomization.yaml': 'resources:\n- cm.yaml\n',
      '001-nginx-ingress/cm.yaml': configMap('cm', 'a: b'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
  });
});
