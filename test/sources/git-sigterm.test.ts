import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';
import { descendants, isAlive } from '../processes.ts';

/**
 * `kaddon sync` and `kaddon build --git-url` stopped by SIGTERM (a CI job's timeout) while git waits
 * on a remote that never answers: the command exits 1 saying it was stopped, and no git process
 * outlives it (docs/modules.md "Limits on input": no child process of kaddon outlives it).
 */
const tmp = makeTempTree('git-sigterm');
const held: Socket[] = [];
let server: Server;
let url: string;

before(async () => {
  // A git daemon that takes the connection and never says a word.
  server = createServer((socket) => {
    held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `git://127.0.0.1:${typeof address === 'object' && address ? String(address.port) : ''}/modules.git`;
});
after(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  tmp.remove();
});

async function stopMidFetch(args: readonly string[]): Promise<void> {
  const cacheDir = tmp.write(`cache-${args[0] ?? ''}`, {});
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), ...args, '--git-url', url], {
    env: { ...process.env, MODULES_GIT_CACHE_DIR: cacheDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let git: number[] = [];
  for (let waited = 0; git.length === 0; waited += 100) {
    assert.ok(waited < 30_000, `git never started: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    git = descendants(child.pid ?? 0)
      .filter((process) => process.command.startsWith('git'))
      .map((process) => process.pid);
  }
  child.kill('SIGTERM');
  // git's own limit for a silent remote is 120 s: a kaddon that waits for it has not stopped git.
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000, 'running'))]);
  assert.equal(code, 1, `not stopped 30 s after SIGTERM: ${stderr}`);
  assert.match(stderr, /stopped by a signal/);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(git.filter(isAlive), [], 'no git process outlives kaddon');
}

describe('SIGTERM while git waits on a remote', () => {
  it('kaddon sync exits 1 and leaves no git running', () => stopMidFetch(['sync']));
  it('kaddon build --git-url exits 1 and leaves no git running', () => stopMidFetch(['build']));
});

/**
 * A SIGKILLed kaddon runs no code: git runs under a launcher that the kernel sends SIGTERM when
 * kaddon dies, and that ends git's process group, helpers included (git-remote-http for an HTTP
 * remote), within 5 s.
 */
async function killMidFetch(remote: string): Promise<void> {
  const cacheDir = tmp.write(`cache-kill-${remote.replace(/:.*/, '')}`, {});
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), 'sync', '--git-url', remote], {
    env: { ...process.env, MODULES_GIT_CACHE_DIR: cacheDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => {
      resolve(signal);
    }),
  );
  const helper = remote.startsWith('http') ? 'git-remote-http' : 'git';
  let started: number[] = [];
  for (
    let waited = 0;
    !descendants(child.pid ?? 0).some((entry) => entry.command === helper);
    waited += 100
  ) {
    assert.ok(waited < 30_000, `${helper} never started`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  started = descendants(child.pid ?? 0).map((entry) => entry.pid);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  for (let waited = 0; started.some(isAlive); waited += 100) {
    assert.ok(
      waited < 5_000,
      `still running 5 s after kaddon was killed: ${started.filter(isAlive).join(', ')}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('SIGKILL while git waits on a remote', () => {
  it('leaves no git running, git:// remote', () => killMidFetch(url));
  it('leaves no git or git-remote-http running, http:// remote', () =>
    killMidFetch(url.replace(/^git:/, 'http:')));
});
