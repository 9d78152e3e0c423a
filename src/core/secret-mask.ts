import { isJsonObject, type JsonValue } from './json.ts';
import { MIN_PIECE, SecretPieces } from './secret-pieces.ts';

/** What a masked secret reads as. */
const MASKED = '***';

/** How many forms of secrets are remembered, and how many characters in all; past that the oldest are forgotten. */
const MAX_SECRETS = 10_000;
const MAX_SECRET_CHARS = 4 * 1024 * 1024;

/**
 * The values kaddon knows to be secret, and the masking of them in text that leaves the process
 * (docs/hooks.md "What of a hook's output leaves the operator"): values it read from Secrets, in
 * their plain and base64 forms, and values its schemas mark `x-kaddon-secret` (docs/values.md).
 * Every output path masks through `mask`: the log, the Module's status, Events, the status page.
 */
export class SecretMask {
  /** The remembered forms, oldest first. */
  readonly #forms = new Set<string>();
  readonly #pieces = new SecretPieces();
  #chars = 0;

  /**
   * Remembers a secret value in the forms a hook may print: as read, trimmed, in base64, and for a
   * value of several lines (a PEM key) each line, since output is logged and kept line by line.
   */
  add(value: string): void {
    for (const form of formsOf(value)) {
      if (this.#forms.has(form)) continue;
      this.#forms.add(form);
      this.#pieces.add(form);
      this.#chars += form.length;
    }
    for (const oldest of this.#forms) {
      if (this.#forms.size <= MAX_SECRETS && this.#chars <= MAX_SECRET_CHARS) break;
      this.#forms.delete(oldest);
      this.#pieces.delete(oldest);
      this.#chars -= oldest.length;
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

  /** The text with every known secret, and every piece of one that SecretPieces finds, replaced by `***`. */
  mask(text: string): string {
    const ranges = this.#pieces.find(text);
    if (ranges.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [start, end] of ranges) {
      out += text.slice(at, start) + MASKED;
      at = end;
    }
    return out + text.slice(at);
  }
}

function formsOf(value: string): string[] {
  const forms = new Set([value, value.trim(), Buffer.from(value).toString('base64')]);
  if (value.includes('\n')) for (const line of value.split('\n')) forms.add(line.trim());
  return [...forms].filter((form) => form.length >= MIN_PIECE);
}
