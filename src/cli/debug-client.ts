import { request } from 'node:http';
import { KaddonError } from '../core/errors.ts';

type DebugClientErrorCode = 'debug-unreachable' | 'debug-request-failed' | 'debug-no-answer';

/** The debug API could not be asked, did not answer in time, or refused the request. */
class DebugClientError extends KaddonError {
  readonly code: DebugClientErrorCode;
  constructor(code: DebugClientErrorCode, message: string, hint: string, cause?: unknown) {
    super(message, hint, { cause });
    this.code = code;
  }
}

export interface DebugRequest {
  readonly socketPath: string;
  readonly path: string;
  /** How long connecting and the whole answer may take (docs/lifecycle.md "Bounds and timeouts"). */
  readonly timeoutMs: number;
  /** The setting that gave `timeoutMs`, named when it runs out. */
  readonly timeoutSetting: string;
}

/**
 * GETs `path` from the debug server on `socketPath` (docs/observability.md "Debug socket") and returns the
 * body; a server that accepts and never answers is given up on after `timeoutMs`.
 */
export function requestDebug(options: DebugRequest): Promise<string> {
  const { socketPath, path, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      call.destroy();
      reject(noAnswer(options));
    }, timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      reject(error);
    };
    const call = request({ socketPath, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(timer);
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(body);
        else reject(new DebugClientError('debug-request-failed', body.trim() || `HTTP ${status}`, ''));
      });
    });
    call.on('error', (error) => {
      fail(unreachable(socketPath, error));
    });
    call.end();
  });
}

function noAnswer({ socketPath, timeoutMs, timeoutSetting }: DebugRequest): DebugClientError {
  return new DebugClientError(
    'debug-no-answer',
    `debug socket '${socketPath}': no answer within ${formatSeconds(timeoutMs)}: the operator is stuck, or what listens there is not kaddon.`,
    `Check the operator's log and DEBUG_UNIX_SOCKET, or allow longer with ${timeoutSetting}.`,
  );
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${String(ms / 1000)} s` : `${String(ms)} ms`;
}

function unreachable(socketPath: string, error: Error): DebugClientError {
  return new DebugClientError(
    'debug-unreachable',
    `debug socket '${socketPath}': kaddon is not running here, or DEBUG_UNIX_SOCKET points elsewhere: ${error.message}.`,
    'Start kaddon, or pass --debug-unix-socket with the path it listens on.',
    error,
  );
}
