import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
import { fakeDebugState } from '../../../test/debug/fake-debug-state.ts';
import { unixGet } from '../../../test/debug/unix-get.ts';
import { makeTempTree, type TempTree } from '../../../test/temp-tree.ts';
import { createDebugServer } from './debug-server.ts';

/** Leaves a socket file nobody listens on, as an operator killed with SIGKILL does. */
function leaveStaleSocket(socket: string): void {
  const script = `require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script, socket]);
  assert.ok(lstatSync(socket).isSocket());
}

describe('debug server socket', () => {
  let tree: TempTree;
  before(() => {
    tree = makeTempTree('debug-socket');
  });
  after(() => {
    tree.remove();
  });

  it('creates the directory (0700) and a socket file only its owner may use (0600)', async () => {
    const socket = path.join(tree.root, 'run', 'addon-operator', 'debug.socket');
    const server = createDebugServer({ socketPath: socket, state: fakeDebugState() });
    await server.start();
    assert.equal(statSync(path.dirname(socket)).mode & 0o777, 0o700);
    assert.ok(lstatSync(socket).isSocket());
    assert.equal(lstatSync(socket).mode & 0o777, 0o600);
    assert.equal((await unixGet(socket, '/')).body, 'debug endpoint is alive\n');
    await server.stop();
    assert.throws(() => lstatSync(socket), { code: 'ENOENT' });
  });

  it('replaces a stale socket file left by a crashed run', async () => {
    const socket = path.join(tree.root, 'stale.socket');
    leaveStaleSocket(socket);
    const server = createDebugServer({ socketPath: socket, state: fakeDebugState() });
    await server.start();
    assert.equal((await unixGet(socket, '/')).status, 200);
    await server.stop();
  });

  it('refuses to start while another server answers on the socket, and leaves that one serving', async () => {
    const socket = path.join(tree.root, 'live.socket');
    const first = createDebugServer({ socketPath: socket, state: fakeDebugState() });
    await first.start();
    try {
      const second = createDebugServer({ socketPath: socket, state: fakeDebugState() });
      await assert.rejects(second.start(), {
        code: 'debug-socket-in-use',
        message: `DEBUG_UNIX_SOCKET '${socket}': another process answers on it.`,
      });
      assert.equal((await unixGet(socket, '/')).status, 200);
    } finally {
      await first.stop();
    }
  });

  it('refuses a regular file, a directory and a symbolic link, naming what is there, and leaves each as it was', async () => {
    const file = path.join(tree.root, 'not-a-socket');
    writeFileSync(file, 'keep me');
    const dir = path.join(tree.root, 'a-dir');
    mkdirSync(dir);
    const link = path.join(tree.root, 'a-link');
    symlinkSync(file, link);
    for (const [at, what] of [
      [file, 'a regular file'],
      [dir, 'a directory'],
      [link, `a symbolic link to '${file}'`],
    ] as const) {
      const server = createDebugServer({ socketPath: at, state: fakeDebugState() });
      await assert.rejects(server.start(), {
        code: 'debug-socket-not-a-socket',
        message: `DEBUG_UNIX_SOCKET '${at}': ${what} is there, not a socket.`,
      });
    }
    assert.equal(readFileSync(file, 'utf8'), 'keep me');
    assert.ok(statSync(dir).isDirectory());
    assert.equal(readlinkSync(link), file);
  });
  it('stop without start is harmless', async () => {
    await createDebugServer({
      socketPath: path.join(tree.root, 'never.socket'),
      state: fakeDebugState(),
    }).stop();
  });
});
