import { createHmac, timingSafeEqual } from 'node:crypto';

/** The providers a Git webhook is checked for (docs/git-webhook.md "Providers"). */
export type WebhookProvider = 'github' | 'gitlab' | 'gitea' | 'forgejo' | 'generic';

/** Request headers as node:http gives them: lower-case names. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * How each provider signs, first match wins: the HMAC-SHA256 of the raw body in hex, with or without
 * a `sha256=` prefix, or the secret itself (GitLab's token).
 */
const SCHEMES: readonly {
  readonly provider: WebhookProvider;
  readonly header: string;
  readonly form: 'prefixed-hmac' | 'bare-hmac' | 'token';
}[] = [
  { provider: 'github', header: 'x-hub-signature-256', form: 'prefixed-hmac' },
  { provider: 'gitlab', header: 'x-gitlab-token', form: 'token' },
  { provider: 'gitea', header: 'x-gitea-signature', form: 'bare-hmac' },
  { provider: 'forgejo', header: 'x-forgejo-signature', form: 'bare-hmac' },
  { provider: 'generic', header: 'x-signature', form: 'prefixed-hmac' },
];

/**
 * The provider whose signature header is present and matches `body` under `secret`, or undefined:
 * no signature header, or the first one present does not match. Comparisons take constant time.
 */
export function verifyWebhookSignature(
  headers: WebhookHeaders,
  body: Buffer,
  secret: string,
): WebhookProvider | undefined {
  const check = startWebhookSignatureCheck(headers, secret);
  if (check === undefined) return undefined;
  check.update(body);
  return check.matches() ? check.provider : undefined;
}

/**
 * A signature being checked while the body streams in: the HMAC is updated chunk by chunk, so no
 * body is held (docs/git-webhook.md "Answers").
 */
export interface WebhookSignatureCheck {
  readonly provider: WebhookProvider;
  /** False for a token: the headers alone decide, the body is never read. */
  readonly needsBody: boolean;
  update(chunk: Buffer): void;
  /** Whether what was sent matches the body seen so far; called once the body has ended. */
  matches(): boolean;
}

/**
 * The check for the first signature header present, or undefined when there is none (or it is
 * repeated, or the secret is empty): such a request is refused before its body is read.
 */
export function startWebhookSignatureCheck(
  headers: WebhookHeaders,
  secret: string,
): WebhookSignatureCheck | undefined {
  const scheme = SCHEMES.find(({ header }) => headers[header] !== undefined);
  if (scheme === undefined || secret === '') return undefined;
  const sent = headers[scheme.header];
  if (typeof sent !== 'string') return undefined;
  const { provider, form } = scheme;
  if (form === 'token')
    return {
      provider,
      needsBody: false,
      update: () => undefined,
      matches: () => isEqualInConstantTime(sent, secret),
    };
  const hmac = createHmac('sha256', secret);
  // Hex digests are compared case-insensitively.
  const given = sent.trim().toLowerCase();
  return {
    provider,
    needsBody: true,
    update: (chunk) => {
      hmac.update(chunk);
    },
    matches: () => {
      const digest = hmac.digest('hex');
      return isEqualInConstantTime(given, form === 'bare-hmac' ? digest : `sha256=${digest}`);
    },
  };
}

/** timingSafeEqual needs equal lengths: both sides are hashed first, so lengths never leak either. */
function isEqualInConstantTime(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHmac('sha256', 'kaddon-compare').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
