import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let scratch: string;
let installed: string;

/**
 * The package as a user gets it: packed with `npm pack`, then installed with production dependencies
 * only into an empty project, as `npm install kaddon` would. The package is assembled in a scratch
 * copy (package.json, README, bin/, components/ and a dist/ bundled there by scripts/build.mjs) so that the checkout's own
 * dist/, which other tests' processes may be running, is never rebuilt under them.
 */
before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'kaddon-pack-'));
  const source = path.join(scratch, 'source');
  for (const entry of ['package.json', 'README.md', 'bin', 'components'])
    await cp(path.join(repoRoot, entry), path.join(source, entry), { recursive: true });
  await run(process.execPath, ['scripts/build.mjs', '--outdir', path.join(source, 'dist')], {
    cwd: repoRoot,
  });
  const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], {
    cwd: source,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
  assert.ok(packed, 'npm pack reported no tarball');
  installed = path.join(scratch, 'project');
  await mkdir(installed);
  await writeFile(path.join(installed, 'package.json'), '{"name":"try-kaddon","private":true}\n');
  await run(
    npm,
    [
      'install',
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      path.join(scratch, packed.filename),
    ],
    { cwd: installed, maxBuffer: 16 * 1024 * 1024 },
  );
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the packed package, installed with production dependencies only', () => {
  it('has no development tools and runs its compiled dist/', async () => {
    const modules = await readdir(path.join(installed, 'node_modules'));
    for (const devTool of ['typescript', 'tsx', 'eslint']) assert.ok(!modules.includes(devTool), devTool);
    const pkg = path.join(installed, 'node_modules/kaddon');
    assert.ok(existsSync(path.join(pkg, 'dist/main.js')));
    assert.ok(!existsSync(path.join(pkg, 'src')), 'the sources are not shipped');
    const { stdout } = await run(path.join(installed, 'node_modules/.bin/kaddon'), ['--help']);
    assert.match(stdout, /build \[MODULES_DIR\.\.\.\]/);
  });

  it('prints the same manifests for examples/platform as the repository does', async () => {
    const args = ['build', 'examples/platform/modules'];
    const options = { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 };
    const fromPackage = await run(path.join(installed, 'node_modules/.bin/kaddon'), args, options);
    const fromRepository = await run(
      process.execPath,
      [path.join(repoRoot, 'bin/kaddon.js'), ...args],
      options,
    );
    assert.ok(fromPackage.stdout.includes('kind: Deployment'));
    assert.equal(fromPackage.stdout, fromRepository.stdout);
  });
});
