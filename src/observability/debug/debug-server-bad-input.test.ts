import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fakeDebugState } from '../../../test/debug/fake-debug-state.ts';
import { unixGet } from '../../../test/debug/unix-get.ts';
import { rawExchange } from '../../../test/http/raw-http.ts';
import { makeTempTree, type TempTree } from '../../../test/temp-tree.ts';
import { createLogger } from '../logger.ts';
import { createDebugServer, type DebugServer } from './debug-server.ts';

describe('debug server, bad input', () => {
  let tree: TempTree;
  let server: DebugServer;
  let socketPath = '';
  let log = '';
  before(async () => {
    tree = makeTempTree('debug-bad-input');
    socketPath = path.join(tree.root, 'debug.socket');
    const logger = createLogger({
      type: 'text',
      level: 'debug',
      noTime: true,
      sink: { write: (text) => (log += text) },
    });
    server = createDebugServer({ socketPath, state: fakeDebugState(), logger });
    await server.start();
  });
  after(async () => {
    await server.stop();
    tree.remove();
  });

  it('answers 400 with one line to malformed percent-encoding in a module or hook name, and logs nothing', async () => {
    for (const [route, segment] of [
      ['/module/%E0%A4%A/values', '%E0%A4%A'],
      ['/module/%ff/values', '%ff'],
      ['/module/%/render', '%'],
      ['/hook/%E0%A4%A/snapshots', '%E0%A4%A'],
    ] as const) {
      const response = await unixGet(socketPath, route);
      assert.equal(response.status, 400, route);
      assert.equal(
        response.body,
        `path segment '${segment}': not valid percent-encoded UTF-8. Encode the name with encodeURIComponent, as the kaddon commands do.\n`,
      );
    }
    assert.equal(log, '');
  });

  it('answers 4xx to targets, methods and headers it cannot use, and still answers after', async () => {
    const cases: [string, number][] = [
      ['GET //[ HTTP/1.1\r\nhost: unix\r\n\r\n', 404],
      ['GET //x:99999/ HTTP/1.1\r\nhost: unix\r\n\r\n', 404],
      ['GET http://x:99999/ HTTP/1.1\r\nhost: unix\r\n\r\n', 400],
      ['GET * HTTP/1.1\r\nhost: unix\r\n\r\n', 400],
      ['BREW /queue/list HTTP/1.1\r\nhost: unix\r\n\r\n', 400],
      ['PUT /queue/list HTTP/1.1\r\nhost: unix\r\n\r\n', 405],
      [`GET /queue/list HTTP/1.1\r\nhost: unix\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ];
    for (const [request, status] of cases)
      assert.equal((await rawExchange({ socketPath }, request)).status, status, request.slice(0, 40));
    assert.equal(log, '');
    assert.equal((await unixGet(socketPath, '/')).status, 200);
  });
});
