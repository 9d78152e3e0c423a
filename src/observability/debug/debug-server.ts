import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { KaddonError } from '../../core/errors.ts';
import { DebugRouteError } from './debug-errors.ts';
import { formatDebugOutput, type FormattedOutput } from './debug-format.ts';
import { matchDebugRoute } from './debug-route-match.ts';
import { DEBUG_ROUTES } from './debug-routes.ts';
import { listenOwnerOnly, prepareSocketPath } from './debug-socket.ts';
import type { DebugState } from './debug-state.ts';
import type { Logger } from '../logger.ts';
import { parseRequestTarget, SERVER_TIMEOUTS } from '../request-target.ts';

export interface DebugServerOptions {
  /** DEBUG_UNIX_SOCKET (OperatorConfig.debugUnixSocket). */
  readonly socketPath: string;
  readonly state: DebugState;
  readonly logger?: Logger | undefined;
}

export interface DebugServer {
  /**
   * Creates the directory, replaces a stale socket (saying so in the log), listens; rejects with a
   * DebugSocketError if another server answers or anything else is at the path.
   */
  start(): Promise<void>;
  /** Answers from `state` from now on (the operator's, once it has one; see startingDebugState). */
  serve(state: DebugState): void;
  /** Stops listening and removes the socket file. */
  stop(): Promise<void>;
}

interface Answer extends FormattedOutput {
  readonly status: number;
}

/**
 * The debug API of docs/observability.md "Debug socket" (HTTP over a unix socket), read from a DebugState.
 */
export function createDebugServer(options: DebugServerOptions): DebugServer {
  let server: Server | undefined;
  let current: DebugServerOptions = options;

  const respond = (request: IncomingMessage, response: ServerResponse): void => {
    answer(current, request)
      .catch((error: unknown) => failure(options, error))
      .then(({ status, body, contentType }) => {
        response.writeHead(status, { 'content-type': contentType });
        response.end(body);
      })
      .catch((error: unknown) => options.logger?.error('debug response failed', { error: String(error) }));
  };

  return {
    serve: (state) => {
      current = { ...options, state };
    },
    start: async () => {
      if ((await prepareSocketPath(options.socketPath)) === 'replaced-stale-socket')
        options.logger?.info('debug socket: removed a stale socket nobody listened on', {
          socket: options.socketPath,
        });
      const listening = createServer(SERVER_TIMEOUTS, respond);
      await listenOwnerOnly(listening, options.socketPath);
      server = listening;
    },
    stop: async () => {
      const running = server;
      server = undefined;
      if (running === undefined) return;
      await new Promise<void>((resolve, reject) => {
        running.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        running.closeAllConnections();
      });
      await rm(options.socketPath, { force: true });
    },
  };
}

async function answer(options: DebugServerOptions, request: IncomingMessage): Promise<Answer> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, body: 'method not allowed: the debug API is read-only\n', contentType: PLAIN };
  }
  const url = parseRequestTarget(request.url);
  if (url === undefined) return { status: 400, body: 'bad request target\n', contentType: PLAIN };
  const { route, module, hook, format } = matchDebugRoute(DEBUG_ROUTES, url);
  const { state } = options;
  if (route.path.includes('{module}') && !state.modules().some((m) => m.name === module)) {
    throw new DebugRouteError(
      'debug-not-found',
      `module '${module}': not found.`,
      'Run `kaddon module list`.',
    );
  }
  if (route.path.includes('{hook}') && !state.hookSnapshots().some((h) => h.hook === hook)) {
    throw new DebugRouteError(
      'debug-not-found',
      `hook '${hook}': not found, or it has no kubernetes bindings.`,
      'Run `kaddon hook snapshots` for the hooks that have snapshots.',
    );
  }
  const output = await route.handle({ state, module, hook, query: url.searchParams });
  return { status: 200, ...formatDebugOutput(output, format) };
}

/** A deliberate error is the user's to read; anything else is a bug, logged here, not shown. */
function failure(options: DebugServerOptions, error: unknown): Answer {
  if (error instanceof DebugRouteError)
    return { status: error.status, body: `${error.describe()}\n`, contentType: PLAIN };
  if (error instanceof KaddonError) return { status: 500, body: `${error.describe()}\n`, contentType: PLAIN };
  options.logger?.error('debug request failed', {
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return { status: 500, body: 'internal error: see the operator log\n', contentType: PLAIN };
}

const PLAIN = 'text/plain; charset=utf-8';
