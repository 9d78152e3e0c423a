import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  discoverGlobalHooks,
  discoverModuleHooks,
  HookDiscoveryError,
  isBatchHookListing,
  type HookDiscovery,
} from './discover-hooks.ts';

let root: string;

/** Writes files under `dir`: a trailing `*` in a name makes the file executable. */
async function tree(dir: string, files: readonly string[]): Promise<void> {
  for (const entry of files) {
    const executable = entry.endsWith('*');
    const file = path.join(dir, executable ? entry.slice(0, -1) : entry);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '#!/bin/sh\n');
    await chmod(file, executable ? 0o755 : 0o644);
  }
}

function names(discovery: HookDiscovery): string[] {
  return discovery.hooks.map((hook) => hook.name);
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'kaddon-discover-'));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('discoverGlobalHooks', () => {
  it('finds executables recursively under $GLOBAL_HOOKS_DIR/hooks, sorted, named from there', async () => {
    const dir = path.join(root, 'global');
    await tree(path.join(dir, 'hooks'), [
      'a-c.sh*',
      'a/b.sh*',
      '001-foo/bar.sh*',
      '000-first.py*',
      'not-executable.sh',
      'lib/helpers.sh*',
      'sub/lib/helpers.sh*',
      '.hidden.sh*',
      '.git/hook.sh*',
      'config.yaml*',
      'values.json*',
      'README.md*',
      'notes.txt*',
    ]);
    await tree(dir, ['openapi/config-values.yaml', 'outside.sh*']);
    const discovery = await discoverGlobalHooks(dir);
    assert.deepEqual(names(discovery), ['000-first.py', '001-foo/bar.sh', 'a-c.sh', 'a/b.sh']);
    const first = discovery.hooks[0];
    assert.deepEqual(first, {
      name: '000-first.py',
      path: path.join(dir, 'hooks', '000-first.py'),
      owner: { kind: 'global' },
    });
    assert.deepEqual(discovery.warnings, [
      `${path.join(dir, 'hooks', 'not-executable.sh')} is skipped: it has no executable permission; chmod +x it to make it a hook`,
    ]);
  });

  it('falls back to $GLOBAL_HOOKS_DIR itself when it has no hooks directory', async () => {
    const dir = path.join(root, 'flat');
    await tree(dir, ['10-hook.sh*', 'openapi/values.yaml']);
    assert.deepEqual(names(await discoverGlobalHooks(dir)), ['10-hook.sh']);
  });

  it('finds nothing in a directory that does not exist', async () => {
    assert.deepEqual(await discoverGlobalHooks(path.join(root, 'missing')), { hooks: [], warnings: [] });
  });

  it('follows symlinks to executables, and skips links to directories or to nothing', async () => {
    const dir = path.join(root, 'links');
    await tree(path.join(dir, 'real'), ['tool.sh*']);
    await mkdir(path.join(dir, 'hooks'), { recursive: true });
    await symlink(path.join(dir, 'real', 'tool.sh'), path.join(dir, 'hooks', 'linked.sh'));
    await symlink(path.join(dir, 'real'), path.join(dir, 'hooks', 'linked-dir'));
    await symlink(path.join(dir, 'gone.sh'), path.join(dir, 'hooks', 'dangling.sh'));
    const discovery = await discoverGlobalHooks(dir);
    assert.deepEqual(names(discovery), ['linked.sh']);
    assert.equal(discovery.hooks[0]?.path, path.join(dir, 'hooks', 'linked.sh'));
    assert.equal(discovery.warnings.length, 2);
    assert.match(discovery.warnings[0] ?? '', /dangling\.sh is skipped: it is a symlink to nothing$/);
    assert.match(
      discovery.warnings[1] ?? '',
      /linked-dir is skipped: symlinks to directories are not followed$/,
    );
  });

  it('skips a hook that links to a program outside the tree, saying so', async () => {
    const outside = path.join(root, 'elsewhere');
    await tree(outside, ['tool.sh*']);
    const dir = path.join(root, 'tree', 'global-hooks');
    await tree(path.join(dir, 'shared'), ['common.sh*']);
    await mkdir(path.join(dir, 'hooks'), { recursive: true });
    await symlink(path.join(outside, 'tool.sh'), path.join(dir, 'hooks', 'escape.sh'));
    await symlink(path.join(dir, 'shared', 'common.sh'), path.join(dir, 'hooks', 'inside.sh'));
    const discovery = await discoverGlobalHooks(dir);
    assert.deepEqual(names(discovery), ['inside.sh']);
    assert.match(
      discovery.warnings.join('\n'),
      /escape\.sh is skipped: it resolves to '.*elsewhere\/tool\.sh', outside/,
    );
  });

  it('leaves out extension-less executables the batch-hook check recognises', async () => {
    const dir = path.join(root, 'batch');
    await tree(path.join(dir, 'hooks'), ['sdk-binary*', 'script.sh*', 'plain*']);
    const asked: string[] = [];
    const discovery = await discoverGlobalHooks(dir, {
      isBatchHook: (file) => {
        asked.push(path.basename(file));
        return Promise.resolve(path.basename(file) === 'sdk-binary');
      },
    });
    assert.deepEqual(names(discovery), ['plain', 'script.sh']);
    assert.deepEqual(asked, ['plain', 'sdk-binary']);
    assert.match(discovery.warnings[0] ?? '', /sdk-binary is skipped: it is a module-sdk batch hook/);
  });

  it('refuses a hooks directory it cannot read', async (t) => {
    if (process.getuid?.() === 0) {
      t.skip('root reads every directory');
      return;
    }
    const dir = path.join(root, 'locked');
    await tree(path.join(dir, 'hooks', 'private'), ['hook.sh*']);
    await chmod(path.join(dir, 'hooks', 'private'), 0o000);
    await assert.rejects(discoverGlobalHooks(dir), HookDiscoveryError);
    await chmod(path.join(dir, 'hooks', 'private'), 0o755);
  });
});

describe('discoverModuleHooks', () => {
  it('finds <module>/hooks executables named hooks/..., skipping lib and venv', async () => {
    const dir = path.join(root, 'modules', '010-echo-server');
    await tree(dir, [
      'hooks/startup.sh*',
      'hooks/nested/check.py*',
      'hooks/lib/common.sh*',
      'hooks/venv/bin/python3*',
      'enabled*',
      'templates/deployment.yaml',
    ]);
    const discovery = await discoverModuleHooks({ name: 'echo-server', dir });
    assert.deepEqual(names(discovery), ['hooks/nested/check.py', 'hooks/startup.sh']);
    assert.deepEqual(discovery.hooks[1], {
      name: 'hooks/startup.sh',
      path: path.join(dir, 'hooks', 'startup.sh'),
      owner: { kind: 'module', module: 'echo-server' },
    });
  });

  it('finds nothing in a module without hooks', async () => {
    const dir = path.join(root, 'modules', '020-no-hooks');
    await tree(dir, ['values.yaml']);
    assert.deepEqual(await discoverModuleHooks({ name: 'no-hooks', dir }), { hooks: [], warnings: [] });
  });
});

describe('isBatchHookListing', () => {
  it('recognises the "Found N items" answer of a module-sdk binary', () => {
    assert.equal(isBatchHookListing('Found 3 items\n'), true);
    assert.equal(isBatchHookListing('Found 0 items'), false);
    assert.equal(isBatchHookListing('usage: hook.sh'), false);
  });
});
