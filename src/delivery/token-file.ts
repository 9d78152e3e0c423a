import { readFileSync, statSync } from 'node:fs';
import { KaddonError } from '../core/errors.ts';

/** A bearer token file that could not be read and no earlier token to fall back on. */
export class TokenFileError extends KaddonError {
  readonly code = 'token-file-unreadable';
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(
      `token file '${file}': ${problem}.`,
      'Mount the service account token (or fix user.tokenFile in the kubeconfig).',
      options,
    );
  }
}

/** How long a token read from a file is used before the file is read again, as client-go's cache. */
const REREAD_AFTER_MS = 60_000;

/**
 * A bearer token kept in a file: an in-cluster service account's projected token, which the kubelet
 * replaces as it rotates, or a kubeconfig user's `tokenFile`. The file is read again when it changes
 * (a new inode, size or modification time: the kubelet swaps a symlink), after a minute in any case,
 * and after the server refused the token (`forget`). While the file cannot be read, the last token
 * read is used.
 */
export class TokenFile {
  readonly path: string;
  #token: string | undefined;
  #stamp = '';
  #readAt = 0;

  constructor(file: string) {
    this.path = file;
  }

  token(now = Date.now()): string {
    let stamp: string;
    try {
      const stats = statSync(this.path);
      stamp = `${String(stats.ino)}:${String(stats.size)}:${String(stats.mtimeMs)}`;
    } catch (error: unknown) {
      return this.#lastOr(error);
    }
    if (this.#token === undefined || stamp !== this.#stamp || now - this.#readAt > REREAD_AFTER_MS) {
      try {
        this.#token = readFileSync(this.path, 'utf8').trim();
      } catch (error: unknown) {
        return this.#lastOr(error);
      }
      this.#stamp = stamp;
      this.#readAt = now;
    }
    return this.#token;
  }

  /** The server refused the token: read the file again next time. */
  forget(): void {
    this.#stamp = '';
  }

  #lastOr(error: unknown): string {
    if (this.#token !== undefined) return this.#token;
    const problem = error instanceof Error ? error.message : String(error);
    throw new TokenFileError(this.path, `cannot be read: ${problem}`, { cause: error });
  }
}
