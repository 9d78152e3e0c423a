import { isJsonObject, type JsonValue } from './json.ts';

/** What a masked secret reads as. */
const MASKED = '***';

/** Shorter values are not masked: they would blank out ordinary words, and are no secrets worth the name. */
const MIN_SECRET_LENGTH = 6;

/** How many values are remembered; past that the oldest are forgotten. */
const MAX_SECRETS = 10_000;

/**
 * The values kaddon knows to be secret, and the masking of them in text that leaves the process
 * (docs/hooks.md "What of a hook's output leaves the operator"): values it read from Secrets, in
 * their plain and base64 forms, and values its schemas mark `x-kaddon-secret` (docs/values.md).
 */
export class SecretMask {
  readonly #values = new Set<string>();
  #sorted: string[] | undefined;

  /** Remembers a secret value in the forms a hook may print: as read, trimmed, and in base64. */
  add(value: string): void {
    for (const form of [value, value.trim(), Buffer.from(value).toString('base64')]) {
      if (form.length < MIN_SECRET_LENGTH || this.#values.has(form)) continue;
      this.#values.add(form);
      this.#sorted = undefined;
    }
    for (const oldest of this.#values) {
      if (this.#values.size <= MAX_SECRETS) break;
      this.#values.delete(oldest);
    }
  }

  /** Remembers the values of a Secret object: `data` (base64) decoded, and `stringData`. */
  addSecretObject(object: JsonValue): void {
    if (!isJsonObject(object)) return;
    const { data, stringData } = object;
    if (isJsonObject(data))
      for (const encoded of Object.values(data))
        if (typeof encoded === 'string') this.add(Buffer.from(encoded, 'base64').toString('utf8'));
    if (isJsonObject(stringData))
      for (const value of Object.values(stringData)) if (typeof value === 'string') this.add(value);
  }

  /** The text with every known secret value replaced by `***`, the longest first. */
  mask(text: string): string {
    if (this.#values.size === 0) return text;
    this.#sorted ??= [...this.#values].sort((a, b) => b.length - a.length);
    let out = text;
    for (const value of this.#sorted) if (out.includes(value)) out = out.split(value).join(MASKED);
    return out;
  }
}
