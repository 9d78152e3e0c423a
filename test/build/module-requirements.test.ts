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
});
