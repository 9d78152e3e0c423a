import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { KaddonError } from '../../src/core/errors.ts';
import { createDebugServer, type DebugServer } from '../../src/observability/debug/debug-server.ts';
import { runCli, type CliRun } from '../run-cli.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';
import { fakeDebugState } from './fake-debug-state.ts';

/** What a hook may write into a message, a value or a snapshot, meant for the terminal that prints it. */
const HOSTILE: Readonly<Record<string, string>> = {
  'OSC window title': '\u001b]0;pwned\u0007',
  'OSC 52 clipboard write': '\u001b]52;c;cm0gLXJmIH4=\u001b\\',
  'CSI clear screen and colour': '\u001b[2J\u001b[31mred',
  '8-bit CSI': '\u009b31mred',
  'C1 NEL and 8-bit OSC': 'a\u0085b\u009d0;title\u009c',
  'bidi override and embedding': 'x\u202etxt.exe\u202c\u202a',
  'bidi isolates and marks': '\u2066a\u2067b\u2068c\u2069\u200e\u200f\u061c',
  'carriage return over the line': 'Ready\rFailed',
  'BEL, backspace, vertical tab, DEL': '\u0007\b\u000b\u007f',
  'line and paragraph separators': 'a\u2028b\u2029c',
};

/** A character a terminal acts on, that no output may hold raw. */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

class HookMessageError extends KaddonError {
  readonly code = 'hook-message';
}

let payload = '';

/** The fake operator state with `payload` where a hook's words end up. */
function hostileState(): ReturnType<typeof fakeDebugState> {
  const base = fakeDebugState();
  return {
    ...base,
    queueList: () => ({ data: { note: payload }, text: `Queue 'main': ${payload}\n` }),
    globalValues: () => ({ motd: payload }),
    modules: () => [{ name: 'echo-server', enabled: true, state: `Failed: ${payload}` }],
    hookSnapshots: () => [{ hook: '000-nodes.sh', bindings: { nodes: [{ filterResult: payload }] } }],
    renderedManifests: () => Promise.reject(new HookMessageError(`module 'echo-server': ${payload}`, '')),
  };
}

function assertInert(run: CliRun, what: string): void {
  assert.doesNotMatch(run.stdout, RAW, `${what}: stdout ${JSON.stringify(run.stdout)}`);
  assert.doesNotMatch(run.stderr, RAW, `${what}: stderr ${JSON.stringify(run.stderr)}`);
  assert.doesNotMatch(run.stderr, /RangeError|internal error| at /u, what);
}

/** A unix socket server that answers every request with `answer` (written by the test). */
function listenRaw(socketPath: string, answer: (socket: Socket) => void): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      answer(socket);
    });
  });
  return new Promise((resolve) => server.listen(socketPath, () => { resolve(server); }));
}

/** Writes `chunk` again and again until the client goes away. */
function endless(socket: Socket, chunk: Buffer): void {
  const write = (): void => {
    while (!socket.destroyed && socket.write(chunk));
    if (!socket.destroyed) socket.once('drain', write);
  };
  write();
}

describe('kaddon debug commands print what a hook wrote without letting the terminal act on it', () => {
  let tree: TempTree;
  let server: DebugServer;
  let socket = '';
  const raws: Server[] = [];
  before(async () => {
    tree = makeTempTree('debug-cli-hostile');
    socket = path.join(tree.root, 'debug.socket');
    server = createDebugServer({ socketPath: socket, state: hostileState() });
    await server.start();
  });
  after(async () => {
    await server.stop();
    for (const raw of raws) raw.close();
    tree.remove();
  });
  const kaddon = (...argv: string[]) => runCli([...argv, '--debug-unix-socket', socket]);

  it('text tables and YAML escape each hostile input, JSON and YAML read back the same', async () => {
    for (const [name, text] of Object.entries(HOSTILE)) {
      payload = text;
      const list = await kaddon('module', 'list');
      assertInert(list, `${name}: module list`);
      assert.equal(list.code, 0);
      assert.match(list.stdout, /^echo-server +true +Failed: .*\\u[0-9a-f]{4}/mu, name);
      for (const command of [['queue', 'list'], ['global', 'values'], ['hook', 'snapshots']])
        assertInert(await kaddon(...command), `${name}: ${command.join(' ')}`);

      const json = await kaddon('module', 'list', '-o', 'json');
      assertInert(json, `${name}: module list -o json`);
      const modules = (JSON.parse(json.stdout) as { modules: { state: string }[] }).modules;
      assert.equal(modules[0]?.state, `Failed: ${text}`, name);
      const values = await kaddon('global', 'values', '-o', 'json');
      assert.deepEqual(JSON.parse(values.stdout), { motd: text }, name);

      const yaml = await kaddon('global', 'values', '-o', 'yaml');
      assertInert(yaml, `${name}: global values -o yaml`);
      assert.deepEqual(parseYaml(yaml.stdout), { motd: text }, name);
    }
  });

  it('an error answer holding hostile text exits 1 with it escaped', async () => {
    for (const [name, text] of Object.entries(HOSTILE)) {
      payload = text;
      const run = await kaddon('module', 'render', 'echo-server');
      assertInert(run, `${name}: module render`);
      assert.equal(run.code, 1, name);
      assert.match(run.stderr, /^Error: module 'echo-server': /u, name);
    }
  });

  it('what a socket that is not kaddon sends raw is escaped too, answer and error alike', async () => {
    const raw = path.join(tree.root, 'raw.socket');
    const body = Object.values(HOSTILE).join('|');
    let status = 200;
    raws.push(
      await listenRaw(raw, (client) => {
        client.end(
          `HTTP/1.1 ${String(status)} X\r\ncontent-type: text/plain\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\n\r\n${body}`,
        );
      }),
    );
    const ok = await runCli(['module', 'list', '--debug-unix-socket', raw]);
    assertInert(ok, 'a raw 200 answer');
    assert.equal(ok.code, 0);
    status = 500;
    const failed = await runCli(['module', 'list', '--debug-unix-socket', raw]);
    assertInert(failed, 'a raw 500 answer');
    assert.equal(failed.code, 1);
  });

  it('of a 1 MB error answer only its start is printed', async () => {
    const raw = path.join(tree.root, 'big-error.socket');
    const body = `module 'echo-server': ${'x'.repeat(1024 * 1024)}`;
    raws.push(
      await listenRaw(raw, (client) => {
        client.end(
          `HTTP/1.1 500 X\r\ncontent-type: text/plain\r\ncontent-length: ${String(body.length)}\r\n\r\n${body}`,
        );
      }),
    );
    const run = await runCli(['module', 'list', '--debug-unix-socket', raw]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^Error: module 'echo-server': x+…\n$/u);
    assert.ok(run.stderr.length < 8 * 1024, `printed ${String(run.stderr.length)} characters`);
  });

  it('an endless answer, or one past the bound, stops with a message and exit 1, never a stack trace', async () => {
    const answers: Readonly<Record<string, string>> = {
      'chunked and endless': 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n',
      'a content-length of 1 GiB': `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${String(1024 ** 3)}\r\n\r\n`,
      'no length, until closed': 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n',
    };
    const line = Buffer.from(`${'\u001b]0;t\u0007'.repeat(100)}\n`.repeat(600));
    for (const [name, head] of Object.entries(answers)) {
      const raw = path.join(tree.root, `endless-${String(raws.length)}.socket`);
      const chunked = head.includes('chunked');
      const chunk = chunked
        ? Buffer.concat([Buffer.from(`${line.length.toString(16)}\r\n`), line, Buffer.from('\r\n')])
        : line;
      raws.push(
        await listenRaw(raw, (client) => {
          client.write(head);
          endless(client, chunk);
        }),
      );
      const run = await runCli(['module', 'render', 'echo-server', '--debug-unix-socket', raw]);
      assert.equal(run.code, 1, name);
      assert.equal(run.stdout, '', name);
      assert.equal(
        run.stderr,
        `Error: debug socket '${raw}': the answer to /module/echo-server/render is larger than 64 MiB; stopped reading it. ` +
          'Ask for less (one module or hook), or check that what listens there is kaddon (DEBUG_UNIX_SOCKET).\n',
        name,
      );
    }
  });
});
