import path from 'node:path';
import { after, before } from 'node:test';
import { createDebugServer, type DebugServer } from '../../src/observability/debug/debug-server.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';
import { fakeDebugState } from './fake-debug-state.ts';

/**
 * A debug server answering from fakeDebugState on a socket in a temp folder, for the tests of the
 * enclosing describe (registers its before/after hooks). Returns the socket path's getter.
 */
export function serveFakeDebugState(prefix: string): () => string {
  let tree: TempTree | undefined;
  let server: DebugServer | undefined;
  let socket = '';
  before(async () => {
    tree = makeTempTree(prefix);
    socket = path.join(tree.root, 'debug.socket');
    server = createDebugServer({ socketPath: socket, state: fakeDebugState() });
    await server.start();
  });
  after(async () => {
    await server?.stop();
    tree?.remove();
  });
  return () => socket;
}
