import { connect, type NetConnectOpts, type Socket } from 'node:net';

/** Where a raw exchange connects: a TCP port on loopback, or a unix socket. */
export type RawTarget = { readonly port: number } | { readonly socketPath: string };

export interface RawAnswer {
  /** The status of the first response, or 0 when the connection closed without one. */
  readonly status: number;
  /** Everything the server wrote before it closed or the exchange ended. */
  readonly text: string;
}

function connectOptions(target: RawTarget): NetConnectOpts {
  return 'port' in target ? { host: '127.0.0.1', port: target.port } : { path: target.socketPath };
}

/**
 * Writes `request` as it is (a request line that no HTTP client would send) and waits for the first
 * complete status line and headers, or for the connection to close. Resolves after at most
 * `waitMs`, with what arrived by then.
 */
export function rawExchange(
  target: RawTarget,
  request: string | Buffer,
  waitMs = 10_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(connectOptions(target));
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/u.exec(text)?.[1];
      resolve({ status: status === undefined ? 0 : Number(status), text });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) done();
    });
    socket.on('close', done);
    socket.on('error', (error) => {
      if (text === '') {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.write(request);
  });
}

/**
 * A connection that sent headers (with a declared `contentLength`) and `sent` bytes of its body,
 * then stalls. Resolves once everything is written; the status arrives on `answered`.
 */
export interface StalledRequest {
  readonly socket: Socket;
  /** The status the server answered with, 0 when it closed without answering. */
  readonly answered: Promise<number>;
}

export function stallRequest(target: RawTarget, head: string, sent: number): Promise<StalledRequest> {
  return new Promise((resolve, reject) => {
    const socket = connect(connectOptions(target));
    let text = '';
    const answered = new Promise<number>((settle) => {
      const finish = (): void => {
        const status = /^HTTP\/1\.[01] (\d{3})/u.exec(text)?.[1];
        settle(status === undefined ? 0 : Number(status));
      };
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) finish();
      });
      socket.on('close', finish);
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      // A reset after the server's answer is what a refused stalled request ends with.
      socket.on('error', () => undefined);
      socket.write(head);
      socket.write(Buffer.alloc(sent, 0x61), () => {
        resolve({ socket, answered });
      });
    });
  });
}
