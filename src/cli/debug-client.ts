import { request } from 'node:http';
import { KaddonError } from '../core/errors.ts';

type DebugClientErrorCode = 'debug-unreachable' | 'debug-request-failed';

/** The debug API could not be asked, or refused the request (unknown module, bad parameter). */
class DebugClientError extends KaddonError {
  readonly code: DebugClientErrorCode;
  constructor(code: DebugClientErrorCode, message: string, hint: string, cause?: unknown) {
    super(message, hint, { cause });
    this.code = code;
  }
}

/**
 * GETs `path` from the debug server on `socketPath` (docs/observability.md "Debug socket") and returns the
 * body.
 */
export function requestDebug(socketPath: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request({ socketPath, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('error', reject);
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(body);
        else reject(new DebugClientError('debug-request-failed', body.trim() || `HTTP ${status}`, ''));
      });
    });
    call.on('error', (error) => {
      reject(unreachable(socketPath, error));
    });
    call.end();
  });
}

function unreachable(socketPath: string, error: Error): DebugClientError {
  return new DebugClientError(
    'debug-unreachable',
    `debug socket '${socketPath}': kaddon is not running here, or DEBUG_UNIX_SOCKET points elsewhere: ${error.message}.`,
    'Start kaddon, or pass --debug-unix-socket with the path it listens on.',
    error,
  );
}
