import { createHmac } from 'node:crypto';
import type { FormatMessage } from './formatted-request.ts';
import { JSON_HEADERS } from './formatted-request.ts';
import type { EpisodeFacts, MessageEntry } from './notification-message.ts';
import { describeTitle } from './notification-text.ts';

/**
 * The generic webhook: the message as JSON, signed with HMAC-SHA256 over the exact body bytes in
 * `X-Kaddon-Signature: sha256=<hex>` (the form GitHub uses, which the Git webhook route checks too),
 * and `X-Kaddon-Delivery` the same on every retry (docs/notifications.md "Generic webhook").
 * Every module is listed: a program reads it, not a person.
 */
export const formatWebhookMessage: FormatMessage = (message, { hmacKey, deliveryId }) => {
  const entries = message.kind === 'summary' ? [...message.failing, ...message.recovered] : message.entries;
  const first = entries[0];
  const payload = {
    kind: message.kind,
    modules: entries.map(({ module }) => module),
    reason: message.kind === 'summary' ? 'Restarted' : (first?.reason ?? ''),
    message: message.kind === 'summary' ? describeTitle(message) : (first?.message ?? ''),
    revision: message.kind === 'summary' ? null : (message.revision ?? null),
    at: rfc3339(message.at),
    ...(first?.episode === undefined || message.kind === 'summary'
      ? {}
      : { episode: episodeJson(first.episode) }),
    ...(message.kind === 'summary'
      ? { failing: message.failing.map(entryJson), recovered: message.recovered.map(entryJson) }
      : { entries: message.entries.map(entryJson) }),
  };
  const body = JSON.stringify(payload);
  const signature = createHmac('sha256', hmacKey ?? '')
    .update(body, 'utf8')
    .digest('hex');
  return {
    body,
    headers: {
      ...JSON_HEADERS,
      'X-Kaddon-Signature': `sha256=${signature}`,
      'X-Kaddon-Delivery': deliveryId,
    },
  };
};

function entryJson({ module, reason, message, at, episode }: MessageEntry): Record<string, unknown> {
  return {
    module,
    reason,
    message,
    at: rfc3339(at),
    ...(episode === undefined ? {} : { episode: episodeJson(episode) }),
  };
}

function episodeJson({ since, failures, downMs }: EpisodeFacts): Record<string, unknown> {
  return {
    since: rfc3339(since),
    failures,
    ...(downMs === undefined ? {} : { downSeconds: Math.round(downMs / 1000) }),
  };
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}
