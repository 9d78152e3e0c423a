/** Replaces every credential in a text: URL user-info and the secret values themselves. */
export type Redact = (text: string) => string;

const REDACTED = '***';

/** `https://user:token@host/x` → `https://***@host/x`; `scp`-like `git@host:x` keeps its user. */
export function redactUrlUserInfo(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, `$1${REDACTED}@`);
}

/**
 * A redactor for a set of secrets. Secrets shorter than 4 characters are not matched: they would
 * blank out ordinary words, and they are not secrets worth the name.
 */
export function createRedactor(secrets: readonly string[]): Redact {
  const values = [...new Set(secrets.flatMap(secretForms))]
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (text) => values.reduce((out, value) => out.split(value).join(REDACTED), redactUrlUserInfo(text));
}

/** A secret as read from its file, trimmed, and as git or a server may echo it (base64 of basic auth). */
function secretForms(secret: string): string[] {
  const trimmed = secret.trim();
  return trimmed === '' ? [] : [trimmed, encodeURIComponent(trimmed)];
}

/** Adds the base64 forms of `user:password` so an echoed Authorization header is redacted too. */
export function basicAuthForms(username: string, password: string): string[] {
  const pair = `${username}:${password.trim()}`;
  return [Buffer.from(pair).toString('base64')];
}
