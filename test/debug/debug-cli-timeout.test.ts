import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kaddon } from '../hostile/run-kaddon.ts';
import { runCli } from '../run-cli.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';

/** Every debug command, with a name where it takes one. */
const COMMANDS: readonly (readonly string[])[] = [
  ['queue', 'list'],
  ['queue', 'main'],
  ['global', 'list'],
  ['global', 'values'],
  ['global', 'patches'],
  ['global', 'config'],
  ['global', 'snapshots'],
  ['module', 'list'],
  ['module', 'values', 'echo'],
  ['module', 'patches', 'echo'],
  ['module', 'config', 'echo'],
  ['module', 'resource-monitor'],
  ['module', 'render', 'echo'],
  ['module', 'diff', 'echo'],
  ['module', 'snapshots', 'echo'],
  ['hook', 'snapshots'],
  ['git', 'status'],
];

/** A unix socket server that accepts connections and never answers (or answers only the head). */
function listenSilently(socketPath: string, write = ''): Promise<{ server: Server; stop(): Promise<void> }> {
  const held = new Set<Socket>();
  const server = createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
    if (write !== '') socket.write(write);
  });
  return new Promise((resolve) => {
    server.listen(socketPath, () => {
      resolve({
        server,
        stop: () =>
          new Promise((done) => {
            for (const socket of held) socket.destroy();
            server.close(() => { done(); });
          }),
      });
    });
  });
}

describe('kaddon debug commands against a socket that accepts and never answers', () => {
  let tree: TempTree;
  let silent: Awaited<ReturnType<typeof listenSilently>>;
  let headOnly: Awaited<ReturnType<typeof listenSilently>>;
  let socket: string;
  let headSocket: string;
  before(async () => {
    tree = makeTempTree('debug-cli-timeout');
    socket = path.join(tree.root, 'silent.socket');
    headSocket = path.join(tree.root, 'head-only.socket');
    silent = await listenSilently(socket);
    headOnly = await listenSilently(
      headSocket,
      'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 100\r\n\r\npartial',
    );
  });
  after(async () => {
    await silent.stop();
    await headOnly.stop();
    tree.remove();
  });

  it('every command gives up after --timeout, exits 1 and names the socket and the setting', async () => {
    for (const command of COMMANDS) {
      const run = await runCli([...command, '--timeout', '300ms', '--debug-unix-socket', socket]);
      assert.equal(run.code, 1, command.join(' '));
      assert.equal(run.stdout, '');
      assert.equal(
        run.stderr,
        `Error: debug socket '${socket}': no answer within 300 ms: the operator is stuck, or what listens there is not kaddon. ` +
          "Check the operator's log and DEBUG_UNIX_SOCKET, or allow longer with --timeout.\n",
        command.join(' '),
      );
    }
  });

  it('gives up on an answer that stops halfway too', async () => {
    const run = await runCli(['module', 'list', '--timeout', '1s', '--debug-unix-socket', headSocket]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^Error: debug socket '.*head-only\.socket': no answer within 1 s:/u);
  });

  it('as a process: KADDON_DEBUG_TIMEOUT bounds `kaddon queue list`, exit 1 naming it', async () => {
    const outcome = await kaddon({ KADDON_DEBUG_TIMEOUT: '2s', DEBUG_UNIX_SOCKET: socket }, 'queue', 'list');
    assert.equal(outcome.code, 1);
    assert.equal(
      outcome.stderr,
      `Error: debug socket '${socket}': no answer within 2 s: the operator is stuck, or what listens there is not kaddon. ` +
        "Check the operator's log and DEBUG_UNIX_SOCKET, or allow longer with KADDON_DEBUG_TIMEOUT.\n",
    );
  });

  it('refuses a --timeout that is not a duration, naming the flag', async () => {
    const run = await runCli(['queue', 'list', '--timeout', 'soon', '--debug-unix-socket', socket]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      "Error: setting '--timeout': 'soon' is not a positive duration. Write it like 30s, 5m or 4m30s.\n",
    );
  });
});
