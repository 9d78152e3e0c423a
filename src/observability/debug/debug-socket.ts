import { type Stats } from 'node:fs';
import { chmod, lstat, mkdir, readlink, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import type { Server } from 'node:net';
import { DebugSocketError } from './debug-errors.ts';

/** What was at the socket path before: nothing, or a socket nobody listened on (now removed). */
export type PreparedSocketPath = 'free' | 'replaced-stale-socket';

const ELSEWHERE = 'or set DEBUG_UNIX_SOCKET to another path';

/**
 * Makes `path` ready to listen on (docs/observability.md "Debug socket"): the directory is created,
 * and a stale socket (one nobody accepts on: an operator that was killed) is removed. Anything else
 * there (a file, a directory, a symbolic link, a socket another process accepts on) is left alone
 * and refused: two operators must not share a socket, and kaddon removes no file it did not make.
 */
export async function prepareSocketPath(path: string): Promise<PreparedSocketPath> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw new DebugSocketError(
      'debug-socket-cannot-listen',
      path,
      `its directory cannot be created (${errorCode(error)})`,
      `Mount a writable directory there, ${ELSEWHERE}.`,
      error,
    );
  });
  const stats = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new DebugSocketError(
      'debug-socket-cannot-listen',
      path,
      `it cannot be examined (${errorCode(error)})`,
      `Check the permissions of its directory, ${ELSEWHERE}.`,
      error,
    );
  });
  if (stats === undefined) return 'free';
  if (!stats.isSocket()) {
    throw new DebugSocketError(
      'debug-socket-not-a-socket',
      path,
      `${await describeEntry(path, stats)} is there, not a socket`,
      `Remove it if it is stale, ${ELSEWHERE}; kaddon does not remove what it did not create.`,
    );
  }
  if (await isAnswering(path)) {
    throw new DebugSocketError(
      'debug-socket-in-use',
      path,
      'another process answers on it',
      `Stop the other kaddon, ${ELSEWHERE}.`,
    );
  }
  await unlink(path);
  return 'replaced-stale-socket';
}

async function describeEntry(path: string, stats: Stats): Promise<string> {
  if (stats.isSymbolicLink()) {
    const target = await readlink(path).catch(() => undefined);
    return target === undefined ? 'a symbolic link' : `a symbolic link to '${target}'`;
  }
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFile()) return 'a regular file';
  return 'a special file';
}

/**
 * Listens on `path` with the socket file readable and writable by its owner only: the umask is
 * narrowed while the file is created, so it never exists with wider permissions.
 */
export async function listenOwnerOnly(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: unknown): void => {
      reject(
        new DebugSocketError(
          'debug-socket-cannot-listen',
          path,
          `cannot listen there (${errorCode(error)})`,
          `Check the directory's permissions and that the path is under 108 bytes, ${ELSEWHERE}.`,
          error,
        ),
      );
    };
    server.once('error', fail);
    // Node binds a pipe inside listen() itself, so the narrowed umask covers exactly that bind.
    const previous = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', fail);
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

function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : String(error);
}
