import { request, type IncomingMessage } from 'node:http';
import { KaddonError } from '../core/errors.ts';
import { cutToBytes, escapeForTerminal } from '../core/untrusted-text.ts';

type DebugClientErrorCode =
  | 'debug-unreachable'
  | 'debug-request-failed'
  | 'debug-no-answer'
  | 'debug-answer-too-large';

/**
 * How much of an answer the client reads (docs/observability.md "Debug socket"): a render of a large
 * tree is a few MiB; past this the answer is not kept, whatever sends it.
 */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Of an error answer, the start is read and printed: a message, not a document. */
const MAX_ERROR_READ_BYTES = 64 * 1024;
const MAX_ERROR_PRINT_BYTES = 4 * 1024;

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
 * body made fit for a terminal (escapeForTerminal); a server that accepts and never answers is given up
 * on after `timeoutMs`, an answer past MAX_ANSWER_BYTES is refused, of an error answer its start is told.
 */
export function requestDebug(options: DebugRequest): Promise<string> {
  const { socketPath, path, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const settle = (outcome: string | Error): void => {
      clearTimeout(timer);
      call.destroy();
      if (typeof outcome === 'string') resolve(escapeForTerminal(outcome));
      else reject(outcome);
    };
    const timer = setTimeout(() => {
      settle(noAnswer(options));
    }, timeoutMs);
    const call = request({ socketPath, path, method: 'GET' }, (response) => {
      readAnswer(response, options, settle);
    });
    call.on('error', (error) => {
      settle(unreachable(socketPath, error));
    });
    call.end();
  });
}

/** Reads the answer up to its bound, then settles with its text or the error it tells. */
function readAnswer(
  response: IncomingMessage,
  options: DebugRequest,
  settle: (outcome: string | Error) => void,
): void {
  const status = response.statusCode ?? 0;
  const ok = status >= 200 && status < 300;
  const chunks: Buffer[] = [];
  let size = 0;
  const refuse = (body: string): void => {
    const text = escapeForTerminal(cutToBytes(body.trim(), MAX_ERROR_PRINT_BYTES));
    settle(new DebugClientError('debug-request-failed', text || `HTTP ${String(status)}`, ''));
  };
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    chunks.push(chunk);
    if (ok && size > MAX_ANSWER_BYTES) settle(tooLarge(options));
    else if (!ok && size > MAX_ERROR_READ_BYTES) refuse(Buffer.concat(chunks).toString('utf8'));
  });
  response.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (ok) settle(body);
    else refuse(body);
  });
  response.on('error', (error) => {
    settle(error);
  });
}

function noAnswer({ socketPath, timeoutMs, timeoutSetting }: DebugRequest): DebugClientError {
  return new DebugClientError(
    'debug-no-answer',
    `debug socket '${socketPath}': no answer within ${formatSeconds(timeoutMs)}: the operator is stuck, or what listens there is not kaddon.`,
    `Check the operator's log and DEBUG_UNIX_SOCKET, or allow longer with ${timeoutSetting}.`,
  );
}

function tooLarge({ socketPath, path }: DebugRequest): DebugClientError {
  return new DebugClientError(
    'debug-answer-too-large',
    `debug socket '${socketPath}': the answer to ${path.split('?')[0] ?? path} is larger than ${String(MAX_ANSWER_BYTES / 1024 / 1024)} MiB; stopped reading it.`,
    'Ask for less (one module or hook), or check that what listens there is kaddon (DEBUG_UNIX_SOCKET).',
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
