import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeTempTree } from '../temp-tree.ts';
import { assertRefused, kaddon } from './run-kaddon.ts';

/**
 * A kubeconfig exec plugin that prints something other than an ExecCredential: `kaddon diff`
 * exits 1 with one line naming the kubeconfig user and the plugin and saying what is wrong, and
 * never shows what the plugin printed, where the token is (docs/lifecycle.md "Bounds and
 * timeouts"). The plugin runs before the first request, so the server is never reached.
 */
const tmp = makeTempTree('exec-plugin-output');
after(() => {
  tmp.remove();
});

const TOKEN = 'kaddonSecretToken7f3a9c2e1b';
const HEADER = '"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"';

const PLUGINS: Record<string, { body: string; problem: RegExp }> = {
  'a bare token': { body: `echo ${TOKEN}`, problem: /printed \d+ bytes that are not JSON/ },
  'an unquoted token': {
    body: `echo '{${HEADER},"status":{"token":${TOKEN}}}'`,
    problem: /printed \d+ bytes that are not JSON/,
  },
  'random bytes after the token': {
    body: `printf '${TOKEN}'; head -c 4096 /dev/urandom`,
    problem: /printed \d+ bytes that are not JSON/,
  },
  'JSON without status': {
    body: `echo '{${HEADER},"token":"${TOKEN}"}'`,
    problem: /printed an ExecCredential without a status object/,
  },
  '5 MB on stderr, the token last, and exit 1': {
    body: `head -c 5000000 /dev/zero | tr '\\0' x >&2; echo >&2; echo "token ${TOKEN} refused" >&2; exit 1`,
    problem: /exited with code 1: token \*\*\* refused/,
  },
};

function kubeconfigWith(name: string, body: string): string {
  const dir = tmp.write(name.replace(/\W+/g, '-'), {
    'plugin.sh': `#!/bin/sh\n${body}\n`,
    'modules/values.yaml': 'appEnabled: true\n',
    'modules/010-app/kustomization.yaml': 'resources: []\n',
  });
  chmodSync(path.join(dir, 'plugin.sh'), 0o755);
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]',
    'users:',
    '- name: ci-robot',
    '  user:',
    '    exec:',
    '      apiVersion: client.authentication.k8s.io/v1',
    `      command: ${path.join(dir, 'plugin.sh')}`,
    '      interactiveMode: Never',
    'contexts: [{name: c, context: {cluster: c, user: ci-robot}}]',
    'current-context: c',
    '',
  ].join('\n');
  return tmp.write(`${name.replace(/\W+/g, '-')}-config`, { kubeconfig }).concat('/kubeconfig');
}

describe('kaddon diff with an exec plugin that prints no ExecCredential', () => {
  for (const [name, plugin] of Object.entries(PLUGINS))
    it(`${name}: exit 1, one line, no token`, async () => {
      const kubeconfig = kubeconfigWith(name, plugin.body);
      const modules = path.join(path.dirname(kubeconfig), '..', name.replace(/\W+/g, '-'), 'modules');
      const outcome = await kaddon({ KUBECONFIG: kubeconfig }, 'diff', modules, '--no-cluster-config');
      assertRefused(outcome, /^Error: kubeconfig user 'ci-robot': exec plugin '.*plugin\.sh' /);
      assert.match(outcome.stderr, plugin.problem);
      assert.equal(outcome.stderr.trimEnd().split('\n').length, 1, outcome.stderr.slice(0, 2000));
      assert.ok(outcome.stderr.length < 2000, `${String(outcome.stderr.length)} characters on stderr`);
      for (const part of [TOKEN, 'kaddonSecret', '7f3a9c2e1b'])
        assert.ok(!(outcome.stdout + outcome.stderr).includes(part), `'${part}' in the output`);
    });

  it('a kubeconfig that is not YAML: its lines are not quoted, the token in them neither', async () => {
    const dir = tmp.write('broken-kubeconfig', {
      kubeconfig: `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${TOKEN}: [\n`,
      'modules/values.yaml': '',
    });
    const outcome = await kaddon(
      { KUBECONFIG: path.join(dir, 'kubeconfig') },
      'diff',
      path.join(dir, 'modules'),
    );
    assertRefused(outcome, /kubeconfig '.*kubeconfig': cannot be read: .* at line 5, column \d+\./);
    assert.ok(!(outcome.stdout + outcome.stderr).includes('kaddonSecret'), outcome.stderr);
  });
});
