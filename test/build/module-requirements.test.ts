import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../run-cli.ts';
import { makeTempTree } from '../temp-tree.ts';

const tree = makeTempTree('module-requirements');
after(() => {
  tree.remove();
});

/** A module with one ConfigMap named after it, and a module.yaml when given. */
function module(name: string, manifest?: string): Record<string, string> {
  const short = name.replace(/^\d+-/, '');
  return {
    [`${name}/kustomization.yaml`]: 'resources:\n- cm.yaml\n',
    [`${name}/cm.yaml`]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${short}\n`,
    ...(manifest === undefined ? {} : { [`${name}/module.yaml`]: manifest }),
  };
}

function enabled(...names: string[]): Record<string, string> {
  return { 'values.yaml': names.map((name) => `${name}Enabled: true\n`).join('') };
}

describe('module.yaml requirements in kaddon build', () => {
  it('renders a module after the modules it requires, the numbers ordering the rest', async () => {
    const dir = tree.write('ordered', {
      ...enabled('app', 'certManager', 'dns', 'zeta'),
      ...module('010-app', 'requirements:\n  modules:\n    cert-manager: "*"\n    dns: ">= 0"\n'),
      ...module('020-dns'),
      ...module('030-cert-manager', 'requirements:\n  modules:\n    dns: "*"\n'),
      ...module('040-zeta'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 0, run.stderr);
    const names = parseAllDocuments(run.stdout).map((document) => document.getIn(['metadata', 'name']));
    assert.deepEqual(names, ['dns', 'cert-manager', 'app', 'zeta']);
  });

  it('refuses a cycle naming every module in it, with exit 1', async () => {
    const dir = tree.write('cycle', {
      ...enabled('a', 'b', 'c'),
      ...module('010-a', 'requirements:\n  modules:\n    b: "*"\n'),
      ...module('020-b', 'requirements:\n  modules:\n    c: "*"\n'),
      ...module('030-c', 'requirements:\n  modules:\n    a: "*"\n'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /module\.yaml '.*010-a\/module\.yaml': the modules require each other in a cycle: a → b → c → a\./,
    );
  });

  it('refuses a requirement on a module the tree lacks, and a version constraint', async () => {
    const unknown = tree.write('unknown', {
      ...enabled('a'),
      ...module('010-a', 'requirements:\n  modules:\n    ghost: "*"\n'),
    });
    const first = await runCli(['build', unknown]);
    assert.equal(first.code, 1);
    assert.match(
      first.stderr,
      /010-a\/module\.yaml': module 'a' requires module 'ghost', which the modules tree does not have/,
    );
    const versioned = tree.write('versioned', {
      ...enabled('a', 'b'),
      ...module('010-a', 'requirements:\n  modules:\n    b: ">= 1.2"\n'),
      ...module('020-b'),
    });
    const second = await runCli(['build', versioned]);
    assert.equal(second.code, 1);
    assert.match(
      second.stderr,
      /the requirement on module 'b' is ">= 1\.2": kaddon modules have no versions/,
    );
  });

  it('refuses a healthTimeout no timer can hold, naming the file (docs/lifecycle.md "Bounds and timeouts")', async () => {
    const dir = tree.write('health-timeout', {
      ...enabled('a'),
      ...module('010-a', 'healthTimeout: 720h\n'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /010-a\/module\.yaml': healthTimeout '720h' is longer than 576h \(24 days\)/);
  });

  it('warns that an enabled module requires a disabled one, which the operator would hold', async () => {
    const dir = tree.write('disabled-requirement', {
      ...enabled('app'),
      'values.yaml': 'appEnabled: true\ndnsEnabled: false\n',
      ...module('010-dns'),
      ...module('020-app', 'requirements:\n  modules:\n    dns: "*"\n'),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /warning: module 'app' requires module 'dns', which is disabled: the operator holds 'app' \(DependencyNotReady\) until 'dns' is enabled and Ready/,
    );
  });
});

describe('module.yaml keys and fields are checked as the operator uses them', () => {
  async function refused(name: string, manifest: string): Promise<string> {
    const dir = tree.write(name, { ...enabled('app'), ...module('010-app', manifest) });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /module\.yaml '.*010-app\/module\.yaml': /);
    return run.stderr;
  }

  it('names an unknown key and the key it was likely meant to be', async () => {
    assert.match(
      await refused('typo-top', 'healthtimeout: 5m\n'),
      /unknown key 'healthtimeout'\. Did you mean 'healthTimeout'\?/,
    );
    assert.match(
      await refused('typo-requirement', 'requirement:\n  modules:\n    dns: "*"\n'),
      /unknown key 'requirement'\. Did you mean 'requirements'\?/,
    );
    assert.match(
      await refused('typo-nested', 'drift:\n  ignore:\n  - path: ["/spec/replicas"]\n'),
      /drift\.ignore\[0\] needs a list of `paths`/,
    );
    assert.match(
      await refused(
        'typo-rule',
        'drift:\n  ignore:\n  - paths: ["/spec/replicas"]\n    targets: {kind: Deployment}\n',
      ),
      /unknown key 'drift\.ignore\[0\]\.targets'\. Did you mean 'drift\.ignore\[0\]\.target'\?/,
    );
    assert.match(
      await refused('unknown-top', 'replicas: 3\n'),
      /unknown key 'replicas'\. module\.yaml takes requirements, healthTimeout, drift\./,
    );
  });

  it('accepts the keys Deckhouse reads, and ignores them', async () => {
    const dir = tree.write('deckhouse-keys', {
      ...enabled('app'),
      ...module(
        '010-app',
        'name: app\nweight: 10\nstage: General Availability\ntags: [web]\ndescriptions: {en: An app}\nrequirements:\n  kubernetes: ">= 1.27"\n',
      ),
    });
    const run = await runCli(['build', dir]);
    assert.equal(run.code, 0, run.stderr);
  });

  it('refuses a drift.ignore pointer with a bad escape and a target that is not a regular expression', async () => {
    assert.match(
      await refused('bad-escape', 'drift:\n  ignore:\n  - paths: ["/metadata/annotations/a~2b"]\n'),
      /drift\.ignore\[0\]: "\/metadata\/annotations\/a~2b" is not a JSON pointer/,
    );
    assert.match(
      await refused(
        'bad-regex',
        'drift:\n  ignore:\n  - paths: ["/spec/replicas"]\n    target: {name: "web-(a"}\n',
      ),
      /drift\.ignore\[0\]\.target\.name "web-\(a" is not a valid regular expression/,
    );
  });
});
