import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import type { Server } from 'node:net';
import { DebugSocketError } from './debug-errors.ts';

/**
 * Makes `path` ready to listen on (docs/observability.md "Debug socket": the directory is created, a stale
 * socket is removed). A socket another process still accepts on is left alone: two operators must not share
 * it.
 */
export async function prepareSocketPath(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const stats = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (stats === undefined) return;
  if (!stats.isSocket()) {
    throw new DebugSocketError(
      'debug-socket-not-a-socket',
      path,
      'the path exists and is not a socket',
      'Remove the file or set DEBUG_UNIX_SOCKET to another path.',
    );
  }
  if (await isAnswering(path)) {
    throw new DebugSocketError(
      'debug-socket-in-use',
      path,
      'another process answers on it',
      'Stop the other kaddon, or set DEBUG_UNIX_SOCKET to another path.',
    );
  }
  await unlink(path);
}

/**
 * Listens on `path` with the socket file readable and writable by its owner only: the umask is
 * narrowed while the file is created, so it never exists with wider permissions.
 */
export async function listenOwnerOnly(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Node binds a pipe inside listen() itself, so the narrowed umask covers exactly that bind.
    const previous = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
  await chmod(path, 0o600);
}

function isAnswering(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

function errorCode(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? error.code : undefined;
}
