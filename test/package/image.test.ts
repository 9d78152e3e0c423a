import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';

const run = promisify(execFile);
const TAG = 'localhost/kaddon:test';
const env = { ...process.env, STORAGE_DRIVER: process.env.STORAGE_DRIVER ?? 'vfs' };

/**
 * The container image (Dockerfile), built here as README "Install in a cluster" says
 * (scripts/build-image.sh: a debootstrap base, podman). A build takes about a minute and needs root,
 * podman, buildah and debootstrap, so it runs only when KADDON_IMAGE_TEST=1 asks for it.
 */
function skipReason(): string | undefined {
  if (process.env.KADDON_IMAGE_TEST !== '1')
    return 'set KADDON_IMAGE_TEST=1 to build and try the image (about a minute)';
  for (const tool of ['podman', 'buildah', 'debootstrap'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  if (process.getuid?.() !== 0) return 'building the base with debootstrap needs root';
  return undefined;
}

const skip = skipReason();
let container: string | undefined;
after(async () => {
  if (container) await run('buildah', ['rm', container], { env }).catch(() => undefined);
});

/**
 * Runs a command in the image. `buildah run` with chroot isolation, not `podman run`: in a sandbox
 * without the right to raise RLIMIT_NOFILE, podman's runtime cannot start a container at all.
 */
async function inImage(command: readonly string[]): Promise<string> {
  assert.ok(container);
  const { stdout } = await run('buildah', ['run', '--isolation', 'chroot', container, '--', ...command], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

describe('the container image', { skip }, () => {
  it('builds, runs kaddon as user 65532, and has helm, kubectl, jq, bash and git', async () => {
    await run(path.join(repoRoot, 'scripts/build-image.sh'), [TAG], {
      env,
      cwd: repoRoot,
      maxBuffer: 256 * 1024 * 1024,
    });
    container = (await run('buildah', ['from', TAG], { env })).stdout.trim();
    assert.equal((await inImage(['id', '-u'])).trim(), '65532');
    assert.match(await inImage(['kaddon', '--help']), /^Usage: kaddon <command>/u);
    assert.match(await inImage(['helm', 'version', '--short']), /^v4\./u);
    assert.match(await inImage(['kubectl', 'version', '--client']), /Client Version: v1\.35/u);
    assert.match(await inImage(['jq', '--version']), /^jq-/u);
    assert.match(await inImage(['bash', '--version']), /GNU bash/u);
    assert.match(await inImage(['git', '--version']), /^git version/u);
  });

  it('renders the bundled example as the repository does', async () => {
    assert.ok(container, 'the image was built');
    await run(
      'buildah',
      ['copy', container, path.join(repoRoot, 'examples/platform/modules'), '/tmp/modules'],
      { env },
    );
    const expected = await runCli(['build', path.join(repoRoot, 'examples/platform/modules')]);
    assert.equal(expected.code, 0, expected.stderr);
    const inside = await inImage(['kaddon', 'build', '/tmp/modules']);
    // The same manifests; the `# source:` comments name the tree where each one was read, relative to
    // the working directory (`/` in the image, the checkout here).
    const normalize = (text: string, root: string): string =>
      text.replaceAll(`# source: ${root}/`, '# source: ').replaceAll(` in ${root}/`, ' in ');
    assert.equal(normalize(inside, 'tmp/modules'), normalize(expected.stdout, 'examples/platform/modules'));
    assert.match(inside, /kind: Deployment/u);
  });
});
