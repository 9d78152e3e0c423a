import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { compareKeys } from '../core/object-key.ts';

/**
 * The 10-character content hash kustomize appends to generated names (kustomize's api/hasher): the
 * sha256 of a Go `encoding/json` document, its first ten hex digits with 0, 1, 3, a and e swapped
 * for letters so the suffix never reads as a number or a word.
 */
export function contentHash(obj: JsonObject): string {
  const digest = createHash('sha256')
    .update(encodeGoJson(hashInput(obj)), 'utf8')
    .digest('hex');
  return digest.slice(0, 10).replace(/[013ae]/g, (ch) => HEX_LETTERS[ch] ?? ch);
}

const HEX_LETTERS: Readonly<Record<string, string>> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };

/**
 * The document kustomize hashes. `name` is always empty: kustomize looks the name up under the
 * single key `metadata/name`, which never exists, so equal content gives equal hashes whatever the
 * object is called (kustomize's api/hasher, ct-01).
 */
function hashInput(obj: JsonObject): JsonValue {
  if (obj.kind === 'ConfigMap') {
    const input: JsonObject = { kind: 'ConfigMap', name: '', data: hashedField(obj.data) };
    if (isMapLike(obj.binaryData)) input.binaryData = hashedField(obj.binaryData);
    return input;
  }
  if (obj.kind === 'Secret') {
    const input: JsonObject = {
      kind: 'Secret',
      name: '',
      data: hashedField(obj.data),
      type: hashedField(obj.type),
    };
    if (isMapLike(obj.stringData)) input.stringData = hashedField(obj.stringData);
    return input;
  }
  return obj;
}

/** Collections are read as maps; a sequence fails to decode into one and encodes as null. */
function isMapLike(value: JsonValue | undefined): boolean {
  return isJsonObject(value) || Array.isArray(value);
}

/** A field as kustomize's hasher reads it: missing is "", a scalar is its text, a map is itself. */
function hashedField(value: JsonValue | undefined): JsonValue {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return null;
  if (isJsonObject(value)) return value;
  return String(value);
}

/** Go `json.Marshal` output: map keys in byte order, no spaces, Go's string escaping. */
export function encodeGoJson(value: JsonValue): string {
  if (typeof value === 'string') return encodeGoString(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(encodeGoJson).join(',')}]`;
  const keys = Object.keys(value).sort(compareKeys); // Go sorts map keys by their UTF-8 bytes
  const members = keys.map((key) => `${encodeGoString(key)}:${encodeGoJson(value[key] ?? null)}`);
  return `{${members.join(',')}}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * Go escapes what JSON.stringify escapes (quote, backslash, control characters, with the same
 * short forms) plus `<`, `>`, `&`, U+2028 and U+2029; invalid UTF-8, which a lone surrogate
 * stands for, becomes U+FFFD.
 */
function encodeGoString(text: string): string {
  return JSON.stringify(text.replace(LONE_SURROGATE, '\uFFFD')).replace(
    HTML_UNSAFE,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
