import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../run-cli.ts';
import { startOperatorEnvironment, waitReady, type OperatorEnvironment } from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-debug-socket-e2e';

let env: OperatorEnvironment;
before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'debug-socket-e2e' });
  env.tree.write('modules', { 'values.yaml': 'global: {}\n' });
});
after(async () => {
  await env.stop();
});

/** `kaddon operator` with DEBUG_UNIX_SOCKET at `socket`, to its exit; killed after 4 minutes (a hang). */
async function runOperatorOn(socket: string): Promise<{ exitCode: number | undefined; output: string }> {
  const operator = env.startOperator({ forceKillAfterDelay: 5_000, extraEnv: { DEBUG_UNIX_SOCKET: socket } });
  const timer = setTimeout(() => operator.process.kill('SIGKILL'), 240_000);
  const result = await operator.process;
  clearTimeout(timer);
  return { exitCode: result.exitCode, output: operator.output() };
}

/** Another process that accepts on `socket` (it never answers HTTP): a live socket not ours. */
function listenInAnotherProcess(socket: string): Promise<ChildProcess> {
  const script = `require('node:net').createServer((c) => c.on('error', () => {})).listen(process.argv[1], () => console.log('up'))`;
  const child = spawn(process.execPath, ['-e', script, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) =>
    child.stdout.once('data', () => {
      resolve(child);
    }),
  );
}

describe('kaddon operator with DEBUG_UNIX_SOCKET taken', () => {
  it('exits 1 naming DEBUG_UNIX_SOCKET and what is there for a file, a directory, a symbolic link and a live socket, and leaves each alone', async () => {
    const root = env.tree.root;
    const file = path.join(root, 'a-file');
    writeFileSync(file, 'keep me');
    const dir = path.join(root, 'a-dir');
    mkdirSync(dir);
    const link = path.join(root, 'a-link');
    symlinkSync(file, link);
    const live = path.join(root, 'live.socket');
    const other = await listenInAnotherProcess(live);
    try {
      const cases = [
        [file, 'a regular file is there, not a socket'],
        [dir, 'a directory is there, not a socket'],
        [link, `a symbolic link to '${file}' is there, not a socket`],
        [live, 'another process answers on it'],
      ] as const;
      // One after the other: each is a full start of kaddon, and the machine may be busy.
      const runs: Awaited<ReturnType<typeof runOperatorOn>>[] = [];
      for (const [socket] of cases) runs.push(await runOperatorOn(socket));
      for (const [i, [socket, problem]] of cases.entries()) {
        const run = runs[i];
        assert.equal(run?.exitCode, 1, run?.output);
        assert.match(
          run.output,
          new RegExp(`^Error: DEBUG_UNIX_SOCKET '${socket}': ${escape(problem)}\\.`, 'mu'),
        );
        assert.doesNotMatch(run.output, /listening/u, 'nothing was served');
      }
      assert.equal(readFileSync(file, 'utf8'), 'keep me');
      assert.ok(statSync(dir).isDirectory());
      assert.equal(readlinkSync(link), file);
      assert.ok(lstatSync(live).isSocket());
    } finally {
      other.kill();
    }
  });

  it('replaces a stale socket nobody listens on, says so in the log, and serves on it', async () => {
    const socket = path.join(env.tree.root, 'stale.socket');
    const script = `require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`;
    spawnSync(process.execPath, ['-e', script, socket]);
    assert.ok(lstatSync(socket).isSocket());
    const operator = env.startOperator({
      forceKillAfterDelay: 5_000,
      extraEnv: { DEBUG_UNIX_SOCKET: socket },
    });
    await waitReady(operator, env.port, 90_000);
    assert.match(operator.output(), /debug socket: removed a stale socket nobody listened on/u);
    const status = await runCli(['git', 'status', '--debug-unix-socket', socket]);
    assert.equal(status.code, 0, status.stderr);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&');
}
