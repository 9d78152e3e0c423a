import type { ReadableStream } from 'node:stream/web';
import { asError } from '../../core/errors.ts';
import type { NotificationFailure } from './notification-counters.ts';

/** What one request to a channel came to. */
export type AttemptOutcome =
  | { readonly kind: 'sent' }
  | { readonly kind: 'rejected'; readonly status: number }
  | {
      readonly kind: 'retry';
      readonly reason: Extract<NotificationFailure, 'http' | 'network'>;
      readonly status: number | undefined;
      readonly error: string | undefined;
      readonly retryAfterMs: number | undefined;
    };

/** The longest Retry-After honoured; the retry budget still decides whether to wait that long. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * A 2xx answer is sent; 408, 429 and 5xx are worth retrying (429 and 503 after their Retry-After);
 * any other answer, redirects included, will not change on retry (docs/notifications.md "Delivery").
 */
export function classifyResponse(status: number, retryAfter: string | null, now: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 408 || status === 429 || status >= 500) {
    const honoured = status === 429 || status === 503 ? parseRetryAfter(retryAfter, now) : undefined;
    return { kind: 'retry', reason: 'http', status, error: undefined, retryAfterMs: honoured };
  }
  return { kind: 'rejected', status };
}

/** Retry-After as seconds or as an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
function parseRetryAfter(text: string | null, now: number): number | undefined {
  if (text === null) return undefined;
  const trimmed = text.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** Reads at most `maxBytes` of the answer and lets the rest go, so a chatty receiver cannot hold memory. */
export async function readBounded(response: Response, maxBytes: number): Promise<void> {
  // Typed from node:stream/web: the DOM types that describe fetch's body are not loaded.
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return;
  try {
    for (let total = 0; total < maxBytes;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      total += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The status decides the outcome; a body cut short changes nothing.
  }
}

/**
 * What went wrong in a request, fit for the log: the system error code when there is one, and
 * never the URL or a part of it, since the URL is the channel's secret (docs/notifications.md
 * "Secrets"). fetch's messages and causes may quote it.
 */
export function describeFetchError(thrown: unknown, url: string): string {
  const error = asError(thrown);
  const cause: unknown = error.cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
  const text = typeof code === 'string' ? code : `${error.name}: ${error.message}`;
  return redactUrl(text, url);
}

/** `text` with the URL, its host, path and query replaced by `***`. */
export function redactUrl(text: string, url: string): string {
  const pieces = [url];
  try {
    const parsed = new URL(url);
    pieces.push(
      parsed.href,
      parsed.host,
      parsed.hostname,
      parsed.pathname,
      parsed.search,
      parsed.username,
      parsed.password,
    );
  } catch {
    // The configuration accepts only URLs that parse; the whole text is redacted above regardless.
  }
  const secret = pieces.filter((piece) => piece.length > 1).sort((a, b) => b.length - a.length);
  return secret.reduce((redacted, piece) => redacted.split(piece).join('***'), text);
}
