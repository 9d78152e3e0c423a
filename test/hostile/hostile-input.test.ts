import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';
import { isAlive } from '../processes.ts';

const run = promisify(execFile);
const tmp = makeTempTree('hostile');
after(() => {
  tmp.remove();
});

/** A file outside every tree below: its content must never show up in what kaddon prints. */
const SECRET = 'TOP-SECRET-OUTSIDE-THE-TREE';
const outside = tmp.write('outside', { 'secret.yaml': `app:\n  secret: ${SECRET}\nsecret: ${SECRET}\n` });
const secretFile = path.join(outside, 'secret.yaml');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `kaddon ARGS` as a user runs it, with a time limit: a hang fails the test instead of stalling it. */
async function kaddon(...args: string[]): Promise<Outcome> {
  return kaddonWith({}, ...args);
}

async function kaddonWith(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), ...args], {
      env: { ...process.env, ...env },
      timeout: 30_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error: unknown) {
    const failed = error as { code?: number; killed?: boolean; stdout?: string; stderr?: string };
    assert.ok(!failed.killed, `kaddon ${args.join(' ')} did not finish within 30 s`);
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Exit 1 with `message` on stderr, no stack trace, nothing from outside the tree printed. */
function assertRefused(outcome: Outcome, message: RegExp): void {
  assert.equal(outcome.code, 1, `exit code; stderr: ${outcome.stderr}`);
  assert.match(outcome.stderr, message);
  assert.doesNotMatch(outcome.stderr, /internal error|\n\s+at /);
  assert.ok(
    !outcome.stdout.includes(SECRET) && !outcome.stderr.includes(SECRET),
    'read a file outside the tree',
  );
}

function readFileIfAny(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const configMap = (name: string, data = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;

/** A modules tree with one enabled module `app` whose ConfigMap shows `$(app.secret)`. */
function modulesTree(name: string, extra: Record<string, string> = {}): string {
  return tmp.write(name, {
    'modules/values.yaml': 'appEnabled: true\napp:\n  name: x\n',
    'modules/010-app/kustomization.yaml': 'resources: [cm.yaml]\n',
    'modules/010-app/cm.yaml': configMap('cm', 'data:\n  secret: "$(app.secret)"\n'),
    ...extra,
  });
}

describe('hostile and broken input: exit 1 with the file and what to fix, never a stack, a hang or a read outside', () => {
  it('refuses a module values.yaml that is a symlink out of the tree', async () => {
    const dir = modulesTree('values-link');
    symlinkSync(secretFile, path.join(dir, 'modules/010-app/values.yaml'));
    assertRefused(await kaddon('build', path.join(dir, 'modules')), /values.yaml': resolves to .*outside/);
  });

  it('refuses the root values.yaml as a symlink out of the tree', async () => {
    const dir = tmp.write('root-values-link', { 'modules/010-app/kustomization.yaml': 'resources: []\n' });
    symlinkSync(secretFile, path.join(dir, 'modules/values.yaml'));
    assertRefused(await kaddon('build', path.join(dir, 'modules')), /values.yaml': resolves to .*outside/);
  });

  it('refuses an openapi schema that is a symlink out of the tree', async () => {
    const dir = modulesTree('schema-link');
    mkdirSync(path.join(dir, 'modules/010-app/openapi'));
    symlinkSync('/etc/passwd', path.join(dir, 'modules/010-app/openapi/values.yaml'));
    assertRefused(
      await kaddon('build', path.join(dir, 'modules')),
      /openapi\/values.yaml': resolves to '\/etc\/passwd'/,
    );
  });

  it('treats a symlinked kustomization.yaml as missing, as kustomize does', async () => {
    const dir = tmp.write('kustomization-link', {
      'real/k.yaml': 'resources: [cm.yaml]\n',
      'o/cm.yaml': configMap('c'),
    });
    symlinkSync('../real/k.yaml', path.join(dir, 'o/kustomization.yaml'));
    assertRefused(
      await kaddon('kustomize', path.join(dir, 'o')),
      /unable to find one of 'kustomization.yaml'/,
    );
  });

  it('refuses a directory where a file is expected', async () => {
    const values = modulesTree('values-dir');
    mkdirSync(path.join(values, 'modules/010-app/values.yaml'));
    assertRefused(
      await kaddon('build', path.join(values, 'modules')),
      /values.yaml': is a directory, not a file/,
    );
    const dir = tmp.write('entry-dirs', {
      'patch/kustomization.yaml': 'resources: [cm.yaml]\npatches:\n- path: p.yaml\n',
      'patch/cm.yaml': configMap('c'),
      'env/kustomization.yaml': 'configMapGenerator:\n- name: g\n  envs: [gen.env]\n',
    });
    mkdirSync(path.join(dir, 'patch/p.yaml'));
    mkdirSync(path.join(dir, 'env/gen.env'));
    assertRefused(await kaddon('kustomize', path.join(dir, 'patch')), /p.yaml' is a directory, not a file/);
    assertRefused(await kaddon('kustomize', path.join(dir, 'env')), /gen.env' is a directory, not a file/);
    assertRefused(await kaddon('kustomize', path.join(dir, 'patch/cm.yaml')), /is a file, not a directory/);
  });

  it('refuses a YAML alias bomb, duplicate keys and absurd nesting, saying which', async () => {
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `a${String(i)}: &a${String(i)} [${Array(10)
          .fill(`*a${String(i - 1)}`)
          .join(', ')}]`,
      );
    const dir = tmp.write('yaml', {
      'bomb/kustomization.yaml': 'resources: [r.yaml]\n',
      'bomb/r.yaml': `${configMap('bomb')}extra:\n  ${levels.join('\n  ')}\n`,
      'dup/kustomization.yaml': 'resources: [r.yaml]\n',
      'dup/r.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n',
      'deep/kustomization.yaml': 'resources: [r.yaml]\n',
      'deep/r.yaml': `${configMap('deep')}extra: ${'['.repeat(3000)}${']'.repeat(3000)}\n`,
    });
    assertRefused(
      await kaddon('kustomize', path.join(dir, 'bomb')),
      /r.yaml:1': its aliases expand to more than 10000 nodes/,
    );
    assertRefused(
      await kaddon('kustomize', path.join(dir, 'dup')),
      /r.yaml:5': a mapping key is defined twice/,
    );
    assertRefused(await kaddon('kustomize', path.join(dir, 'deep')), /nests deeper than 500 levels/);
  });

  it('stops a component condition or a hook jqFilter that never ends, within KADDON_JQ_TIMEOUT', async () => {
    const dir = modulesTree('endless-jq', {
      'modules/010-app/kustomization.yaml':
        "resources: [cm.yaml]\ncomponents:\n- path: ha\n  when: 'def f: f; f'\n",
      'modules/010-app/ha/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
    });
    const outcome = await kaddonWith({ KADDON_JQ_TIMEOUT: '1s' }, 'build', path.join(dir, 'modules'));
    assertRefused(
      outcome,
      /jq expression 'def f: f; f' failed: did not finish within 1 s\. .*KADDON_JQ_TIMEOUT/,
    );
    assert.match(outcome.stderr, /010-app/);
  });

  it('matches patch target patterns in linear time, as Go does, whatever the pattern', async () => {
    const long = `${'a'.repeat(30_000)}b`;
    const dir = tmp.write('redos', {
      'kustomization.yaml':
        "resources: [cm.yaml]\npatches:\n- target:\n    name: '(a+)+$'\n  patch: |-\n    - op: add\n      path: /data\n      value: {patched: 'yes'}\n",
      'cm.yaml': configMap(long),
    });
    const outcome = await kaddon('kustomize', dir);
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.doesNotMatch(outcome.stdout, /patched/, 'the name ends in b: no match');
  });

  it('ends a running hook and removes its temp files when kaddon build is stopped', async () => {
    const marker = tmp.write('stopped-marker', {});
    const tmpRoot = tmp.write('stopped-tmp', {});
    const dir = modulesTree('stopped', {
      'modules/010-app/hooks/sleepy.sh':
        '#!/bin/bash\nif [ "$1" = "--config" ]; then echo \'{"configVersion":"v1","beforeHelm":1}\'; exit 0; fi\n' +
        `echo $$ > ${marker}/pid\nsleep 300\n`,
    });
    chmodSync(path.join(dir, 'modules/010-app/hooks/sleepy.sh'), 0o755);
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin/kaddon.js'), 'build', '--run-hooks', path.join(dir, 'modules')],
      {
        env: { ...process.env, TMPDIR: tmpRoot },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        resolve(code);
      }),
    );
    let pid = '';
    while (pid === '') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pid = readFileIfAny(path.join(marker, 'pid')).trim();
    }
    assert.ok(isAlive(Number(pid)), 'the hook runs');
    child.kill('SIGTERM');
    assert.equal(await exited, 1, stderr);
    assert.match(stderr, /hooks\/sleepy\.sh/);
    assert.equal(isAlive(Number(pid)), false, 'the hook was ended with kaddon');
    // tsx keeps its compile cache there when the sources run uncompiled; that is not kaddon's.
    const left = readdirSync(tmpRoot).filter((name) => !name.startsWith('tsx-'));
    assert.deepEqual(left, [], 'no temp files left');
  });

  it('refuses a module section of values.yaml that is a list', async () => {
    const dir = modulesTree('list-section', { 'modules/values.yaml': 'appEnabled: true\napp:\n- 1\n- 2\n' });
    assertRefused(
      await kaddon('build', path.join(dir, 'modules')),
      /values.yaml': the section 'app' is a list, not a map/,
    );
  });

  it("resolves only the values' own keys: $(app.__proto__) and $(app.toString) name nothing", async () => {
    const dir = modulesTree('own-keys', {
      'modules/010-app/cm.yaml': configMap('cm', 'data:\n  a: "$(app.__proto__)"\n  b: "$(app.toString)"\n'),
    });
    const plain = await kaddon('build', path.join(dir, 'modules'));
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /a: \$\(app.__proto__\)\n\s+b: \$\(app.toString\)\n/);
    assertRefused(await kaddon('build', '--strict', path.join(dir, 'modules')), /app\.__proto__/);
  });
});
