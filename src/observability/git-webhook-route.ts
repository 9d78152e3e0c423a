import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';

/** The route of the Git webhook receiver (docs/git-webhook.md). */
export const GIT_WEBHOOK_PATH = '/hooks/git';

/** Larger bodies are answered 413 without being read further. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

export interface GitWebhookOptions {
  /**
   * The provider whose signature of `body` under the shared secret the headers carry, or undefined
   * (sources/git-webhook-signature.ts; docs/git-webhook.md "Providers").
   */
  readonly verifySignature: (headers: IncomingHttpHeaders, body: Buffer) => string | undefined;
  /**
   * Asks the Git source to fetch now; false when this process has no Git source to ask (an HA
   * standby). The payload never says what to fetch: the revision still comes from Git.
   */
  readonly requestSync: () => boolean;
  readonly logger?: Logger | undefined;
}

/**
 * POST /hooks/git: a signed request makes the Git source fetch now (202). 405 for another method,
 * 413 for a body over 1 MiB, 401 for a missing or wrong signature, 503 on a standby.
 */
export async function handleGitWebhook(
  request: IncomingMessage,
  response: ServerResponse,
  options: GitWebhookOptions,
): Promise<void> {
  if (request.method !== 'POST') {
    answer(response, 405, 'method not allowed: POST only\n', { allow: 'POST' });
    return;
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  const body = declared > MAX_WEBHOOK_BODY_BYTES ? undefined : await readBody(request);
  if (body === undefined) {
    refuseTooLarge(request, response);
    return;
  }
  const provider = options.verifySignature(request.headers, body);
  if (provider === undefined) {
    options.logger?.debug('git webhook refused: signature missing or wrong');
    answer(response, 401, 'signature missing or wrong\n');
    return;
  }
  if (!options.requestSync()) {
    answer(response, 503, 'standby: the leader fetches from Git\n');
    return;
  }
  options.logger?.info('git webhook: fetch requested', { provider });
  answer(response, 202, 'fetch requested\n');
}

/** The body, or undefined as soon as it grows past the limit (the rest is left unread). */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_WEBHOOK_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      request.off('data', onData);
      request.pause();
      resolve(undefined);
    };
    request.on('data', onData);
    request.once('end', () => {
      resolve(Buffer.concat(chunks));
    });
    request.once('error', reject);
  });
}

/** 413, then the connection is closed: what the client still sends is never read. */
function refuseTooLarge(request: IncomingMessage, response: ServerResponse): void {
  answer(response, 413, `body over ${MAX_WEBHOOK_BODY_BYTES} bytes\n`, { connection: 'close' }, () => {
    request.socket.destroy();
  });
}

function answer(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  done?: () => void,
): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(body, done);
}
