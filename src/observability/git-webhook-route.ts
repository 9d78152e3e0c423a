import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { KaddonError } from '../core/errors.ts';
import type { Logger } from './logger.ts';
import { UnverifiedBodies } from './unverified-bodies.ts';

/** The route of the Git webhook receiver (docs/git-webhook.md). */
export const GIT_WEBHOOK_PATH = '/hooks/git';

/** Larger bodies are answered 413 without being read further. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/**
 * How many bodies whose signature is not checked yet may stream at once; a request past it makes
 * the oldest one give way with 503 (docs/git-webhook.md "Limits").
 */
const DEFAULT_MAX_UNVERIFIED_BODIES = 16;

/** How long a refused connection may still send before it is closed. */
const REFUSED_LINGER_MS = 2_000;

/** A signature being checked as the body streams (sources/git-webhook-signature.ts). */
interface SignatureCheck {
  readonly provider: string;
  /** False when the headers alone decide (a token): the body is never read. */
  readonly needsBody: boolean;
  update(chunk: Buffer): void;
  matches(): boolean;
}

export interface GitWebhookOptions {
  /**
   * The check of the request's signature header under the secret as it is now, or undefined when
   * there is none; a KaddonError when the secret cannot be read (a secret file gone or replaced).
   */
  readonly startSignatureCheck: (headers: IncomingHttpHeaders) => SignatureCheck | undefined;
  /**
   * Asks the Git source to fetch now; false when this process has no Git source to ask (an HA
   * standby). The payload never says what to fetch: the revision still comes from Git.
   */
  readonly requestSync: () => boolean;
  readonly logger?: Logger | undefined;
  readonly maxUnverifiedBodies?: number | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * POST /hooks/git: a signed request makes the Git source fetch now (202). 405 for another method,
 * 413 for a body over 1 MiB, 401 for a missing or wrong signature, 503 on a standby, while the
 * secret cannot be read, or for a body pushed out by newer ones. No body is ever held: the HMAC is
 * updated chunk by chunk.
 */
export function createGitWebhookRoute(options: GitWebhookOptions): Handler {
  const unverified = new UnverifiedBodies(options.maxUnverifiedBodies ?? DEFAULT_MAX_UNVERIFIED_BODIES);
  const startCheck = secretProblemReporter(options);
  return (request, response) => {
    if (request.method !== 'POST') {
      refuse(request, response, 405, 'method not allowed: POST only\n', { allow: 'POST' });
      return;
    }
    if (Number(request.headers['content-length'] ?? 0) > MAX_WEBHOOK_BODY_BYTES) {
      refuse(request, response, 413, `body over ${MAX_WEBHOOK_BODY_BYTES} bytes\n`);
      return;
    }
    const check = startCheck(request, response);
    if (check === 'answered') return;
    if (check === undefined) {
      options.logger?.debug('git webhook refused: no signature header');
      refuse(request, response, 401, 'signature missing or wrong\n');
      return;
    }
    if (!check.needsBody) {
      decide(request, response, check, options);
      return;
    }
    streamBody(request, response, check, unverified, options);
  };
}

/**
 * The check, or 'answered' after a 503 when the secret cannot be read. The problem is logged once
 * when it starts and once when the secret can be read again, not for every request.
 */
function secretProblemReporter(
  options: GitWebhookOptions,
): (request: IncomingMessage, response: ServerResponse) => SignatureCheck | undefined | 'answered' {
  let failing = false;
  return (request, response) => {
    try {
      const check = options.startSignatureCheck(request.headers);
      if (failing) options.logger?.info('git webhook: the secret can be read again');
      failing = false;
      return check;
    } catch (error: unknown) {
      if (!(error instanceof KaddonError)) throw error;
      if (!failing) options.logger?.error(`git webhook answers 503: ${error.describe()}`);
      failing = true;
      refuse(request, response, 503, 'the webhook secret cannot be read: see the operator log\n');
      return 'answered';
    }
  };
}

/** Feeds the body to the check as it arrives; nothing of it is kept. */
function streamBody(
  request: IncomingMessage,
  response: ServerResponse,
  check: SignatureCheck,
  unverified: UnverifiedBodies,
  options: GitWebhookOptions,
): void {
  let size = 0;
  const stop = (): void => {
    request.off('data', onData);
    request.off('end', onEnd);
    release();
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size <= MAX_WEBHOOK_BODY_BYTES) {
      check.update(chunk);
      return;
    }
    stop();
    refuse(request, response, 413, `body over ${MAX_WEBHOOK_BODY_BYTES} bytes\n`);
  };
  const onEnd = (): void => {
    stop();
    decide(request, response, check, options);
  };
  const release = unverified.admit(() => {
    stop();
    options.logger?.debug('git webhook refused: pushed out by newer unverified bodies');
    refuse(request, response, 503, 'too many unsigned webhook bodies at once: try again\n');
  });
  request.on('data', onData);
  request.once('end', onEnd);
  request.once('close', stop);
}

function decide(
  request: IncomingMessage,
  response: ServerResponse,
  check: SignatureCheck,
  options: GitWebhookOptions,
): void {
  if (!check.matches()) {
    options.logger?.debug('git webhook refused: signature missing or wrong');
    refuse(request, response, 401, 'signature missing or wrong\n');
    return;
  }
  // A signed request: what is left of its body (after a token) is read and dropped as it comes.
  request.resume();
  if (!options.requestSync()) {
    answer(response, 503, 'standby: the leader fetches from Git\n');
    return;
  }
  options.logger?.info('git webhook: fetch requested', { provider: check.provider });
  answer(response, 202, 'fetch requested\n');
}

/**
 * Answers and closes the connection. What the client still sends is read and dropped (so that the
 * close does not reset the connection before the answer is read), for at most a moment.
 */
function refuse(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  request.resume();
  const socket = request.socket;
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  answer(response, status, body, { ...headers, connection: 'close' });
}

function answer(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(body);
}
