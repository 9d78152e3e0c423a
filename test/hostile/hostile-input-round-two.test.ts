import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeTempTree } from '../temp-tree.ts';
import { assertRefused, kaddon } from './run-kaddon.ts';

/**
 * Depth, fan-out, special files, bytes YAML does not allow and encodings (docs/modules.md "Limits
 * on input"), each through the CLI as a user runs it: exit 1 with the file named, no temp files
 * left. The chart module cases are in chart-render-limits.test.ts.
 */
const tmp = makeTempTree('hostile-two');
after(() => {
  tmp.remove();
});

const configMap = (name: string, data = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;
const component = (body: string): string =>
  `apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n${body}`;

/** A modules tree with one enabled module `app` and its ConfigMap. */
function modulesTree(name: string, extra: Record<string, string> = {}): string {
  return tmp.write(name, {
    'modules/values.yaml': 'appEnabled: true\napp:\n  name: x\n',
    'modules/010-app/kustomization.yaml': 'resources: [cm.yaml]\n',
    'modules/010-app/cm.yaml': configMap('cm', 'data:\n  name: "$(app.name)"\n'),
    ...extra,
  });
}

describe('hostile input, round two: depth, special files, bytes and encodings', () => {
  it('refuses a chain of components deeper than 100 levels, naming its first and last files', async () => {
    const files: Record<string, string> = {
      'top/kustomization.yaml': 'resources: [cm.yaml]\ncomponents: [../c0]\n',
      'top/cm.yaml': configMap('cm'),
    };
    for (let i = 0; i < 150; i++)
      files[`c${String(i)}/kustomization.yaml`] = component(`components: [../c${String(i + 1)}]\n`);
    files['c150/kustomization.yaml'] = component('');
    const dir = tmp.write('component-chain', files);
    assertRefused(
      await kaddon({}, 'kustomize', path.join(dir, 'top')),
      /c98\/kustomization.yaml': kustomizations nest deeper than 100 levels: the chain from '.*top\/kustomization.yaml' reaches '.*c99' at depth 101/,
    );
  });

  it('refuses a chain of bases in a module deeper than 100 levels', async () => {
    const files: Record<string, string> = { 'modules/010-app/kustomization.yaml': 'resources: [b0]\n' };
    let dir = 'modules/010-app';
    for (let i = 0; i < 120; i++) {
      dir = `${dir}/b${String(i)}`;
      files[`${dir}/kustomization.yaml`] =
        i === 119 ? 'resources: [cm.yaml]\n' : `resources: [b${String(i + 1)}]\n`;
    }
    files[`${dir}/cm.yaml`] = configMap('cm');
    const root = modulesTree('base-chain', files);
    assertRefused(
      await kaddon({}, 'build', path.join(root, 'modules')),
      /kustomizations nest deeper than 100 levels: the chain from '.*010-app\/kustomization.yaml'/,
    );
  });

  it('refuses a chain that names each next level twice before it loads 2^depth kustomizations', async () => {
    const files: Record<string, string> = {
      'top/kustomization.yaml': 'resources: [cm.yaml]\ncomponents: [../c0]\n',
      'top/cm.yaml': configMap('cm'),
    };
    for (let i = 0; i < 30; i++)
      files[`c${String(i)}/kustomization.yaml`] = component(
        `components: [../c${String(i + 1)}, ../c${String(i + 1)}]\n`,
      );
    files['c30/kustomization.yaml'] = component('commonLabels: {a: b}\n');
    const dir = tmp.write('fan-out', files);
    assertRefused(
      await kaddon({}, 'kustomize', path.join(dir, 'top')),
      /kustomization.yaml': the build loads more than 2000 kustomizations/,
    );
  });

  it("refuses a hook's values patch nested deeper than 500 levels", async () => {
    const dir = modulesTree('deep-patch', {
      'modules/010-app/hooks/deep.sh':
        '#!/bin/bash\nif [ "$1" = "--config" ]; then echo \'{"configVersion":"v1","beforeHelm":1}\'; exit 0; fi\n' +
        'v=1; open=""; close=""\nfor i in $(seq 600); do open="$open["; close="$close]"; done\n' +
        'echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/app/deep\\",\\"value\\":$open$v$close}]" > "$VALUES_JSON_PATCH_PATH"\n',
    });
    chmodSync(path.join(dir, 'modules/010-app/hooks/deep.sh'), 0o755);
    assertRefused(
      await kaddon({}, 'build', '--run-hooks', path.join(dir, 'modules')),
      /hooks\/deep\.sh.*nests deeper than 500 levels/s,
    );
  });

  it('refuses a named pipe where a resource or values.yaml is expected, saying what it is', async () => {
    const plain = tmp.write('fifo-resource', { 'kustomization.yaml': 'resources: [cm.yaml]\n' });
    execFileSync('mkfifo', [path.join(plain, 'cm.yaml')]);
    assertRefused(
      await kaddon({}, 'kustomize', plain),
      /file '.*fifo-resource\/cm.yaml': is a named pipe \(FIFO\), not a regular file/,
    );
    const tree = modulesTree('fifo-values');
    execFileSync('mkfifo', [path.join(tree, 'modules/010-app/values.yaml')]);
    assertRefused(
      await kaddon({}, 'build', path.join(tree, 'modules')),
      /010-app\/values.yaml': is a named pipe \(FIFO\), not a regular file/,
    );
    const patch = tmp.write('fifo-patch', {
      'kustomization.yaml': 'resources: [cm.yaml]\npatches:\n- path: p.yaml\n',
      'cm.yaml': configMap('cm'),
    });
    execFileSync('mkfifo', [path.join(patch, 'p.yaml')]);
    assertRefused(await kaddon({}, 'kustomize', patch), /p.yaml': is a named pipe \(FIFO\)/);
  });

  it('refuses a socket where a generator source is expected', async () => {
    const dir = tmp.write('socket', {
      'kustomization.yaml': 'configMapGenerator:\n- name: g\n  files: [s.txt]\n',
    });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 's.txt'), resolve));
    try {
      assertRefused(await kaddon({}, 'kustomize', dir), /s.txt': is a socket, not a regular file/);
    } finally {
      server.close();
    }
  });

  it('refuses control characters in YAML with file and line, and takes them as escapes', async () => {
    const values = modulesTree('nul-values', {
      'modules/values.yaml': 'appEnabled: true\napp:\n  name: "a\u0000b"\n',
    });
    assertRefused(
      await kaddon({}, 'build', path.join(values, 'modules')),
      /modules\/values.yaml:3': holds the control character U\+0000, which YAML does not allow/,
    );
    const resource = tmp.write('bell-resource', {
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap('cm', 'data:\n  a: "ring\u0007"\n'),
    });
    assertRefused(await kaddon({}, 'kustomize', resource), /cm.yaml:6': holds the control character U\+0007/);
    const escaped = tmp.write('escaped', {
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap('cm', 'data:\n  a: "tab\\there"\n'),
    });
    const outcome = await kaddon({}, 'kustomize', escaped);
    assert.equal(outcome.code, 0, outcome.stderr);
  });

  it('names the encoding of a UTF-16 values.yaml and the line of bytes that are not UTF-8', async () => {
    const utf16 = modulesTree('utf16');
    writeFileSync(
      path.join(utf16, 'modules/010-app/values.yaml'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('app:\n  name: y\n', 'utf16le')]),
    );
    assertRefused(
      await kaddon({}, 'build', path.join(utf16, 'modules')),
      /010-app\/values.yaml': is encoded in UTF-16 \(little-endian\), not UTF-8/,
    );
    const latin1 = tmp.write('latin1', { 'kustomization.yaml': 'resources: [cm.yaml]\n' });
    writeFileSync(
      path.join(latin1, 'cm.yaml'),
      Buffer.from(configMap('cm', 'data:\n  a: "caf\xe9"\n'), 'latin1'),
    );
    assertRefused(await kaddon({}, 'kustomize', latin1), /cm.yaml:6': is not valid UTF-8/);
  });

  it('reports a symlink loop as a loop, not as a missing file', async () => {
    const plain = tmp.write('loop-resource', { 'kustomization.yaml': 'resources: [a.yaml]\n' });
    symlinkSync('b.yaml', path.join(plain, 'a.yaml'));
    symlinkSync('a.yaml', path.join(plain, 'b.yaml'));
    assertRefused(await kaddon({}, 'kustomize', plain), /a.yaml': is a symlink loop/);
    const tree = modulesTree('loop-values');
    mkdirSync(path.join(tree, 'modules/010-app/x'));
    symlinkSync('values.yaml', path.join(tree, 'modules/010-app/values.yaml'));
    assertRefused(
      await kaddon({}, 'build', path.join(tree, 'modules')),
      /010-app\/values.yaml': is a symlink loop/,
    );
  });
});
