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
  const scheme = SCHEMES.find(({ header }) => headers[header] !== undefined);
  if (scheme === undefined || secret === '') return undefined;
  const sent = headers[scheme.header];
  if (typeof sent !== 'string') return undefined;
  const hmac = (): string => createHmac('sha256', secret).update(body).digest('hex');
  const expected =
    scheme.form === 'token' ? secret : scheme.form === 'bare-hmac' ? hmac() : `sha256=${hmac()}`;
  // Hex digests are compared case-insensitively; a token exactly.
  const given = scheme.form === 'token' ? sent : sent.trim().toLowerCase();
  return isEqualInConstantTime(given, expected) ? scheme.provider : undefined;
}

/** timingSafeEqual needs equal lengths: both sides are hashed first, so lengths never leak either. */
function isEqualInConstantTime(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHmac('sha256', 'kaddon-compare').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
