import { KaddonError } from '../../core/errors.ts';

export type DebugRouteErrorCode = 'debug-not-found' | 'debug-bad-request' | 'debug-unavailable';

const STATUS_BY_CODE = {
  'debug-not-found': 404,
  'debug-bad-request': 400,
  'debug-unavailable': 503,
} as const;

/**
 * A debug request the server cannot answer: an unknown route, module or hook, a bad parameter,
 * or state the operator does not have yet (it is still starting).
 */
export class DebugRouteError extends KaddonError {
  readonly code: DebugRouteErrorCode;
  readonly status: (typeof STATUS_BY_CODE)[DebugRouteErrorCode];

  constructor(code: DebugRouteErrorCode, message: string, hint: string) {
    super(message, hint);
    this.code = code;
    this.status = STATUS_BY_CODE[code];
  }
}

export type DebugSocketErrorCode =
  'debug-socket-in-use' | 'debug-socket-not-a-socket' | 'debug-socket-cannot-listen';

/**
 * The debug socket path cannot be served: another process answers on it, something else is there,
 * or listening failed. The operator stops with exit 1, as addon-operator does when it cannot listen.
 */
export class DebugSocketError extends KaddonError {
  readonly code: DebugSocketErrorCode;
  readonly path: string;
  constructor(code: DebugSocketErrorCode, path: string, problem: string, hint: string, cause?: unknown) {
    super(`DEBUG_UNIX_SOCKET '${path}': ${problem}.`, hint, { cause });
    this.code = code;
    this.path = path;
  }
}
