import type { JsonValue } from '../json.ts';
import { GO_YAML_RULES } from './go-yaml-rules.ts';

/**
 * What a plain (unquoted, untagged) scalar means where kustomize reads it: go-yaml v3, through
 * kyaml, as the API server's decoder does too (docs/architecture.md "YAML"). Not the YAML 1.2 core
 * schema: `0755` is the octal 493, `1_000` is 1000, `2001-12-14` is a timestamp, `yes` and `on`
 * stay strings. `undefined` means the scalar is a string.
 */
export type PlainScalar = { readonly value: JsonValue } | { readonly notFinite: number } | undefined;

const { v3 } = GO_YAML_RULES;

const WORDS = new Map<string, { value: JsonValue } | { notFinite: number }>([
  ...v3.nulls.map((word) => [word, { value: null }] as const),
  ...v3.trues.map((word) => [word, { value: true }] as const),
  ...v3.falses.map((word) => [word, { value: false }] as const),
  ...v3.nans.map((word) => [word, { notFinite: NaN }] as const),
  ...v3.infinities.map((word) => [word, { notFinite: Infinity }] as const),
  ...v3.negativeInfinities.map((word) => [word, { notFinite: -Infinity }] as const),
]);

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** How go-yaml v3 resolves a plain scalar (its resolve.go), as JSON holds the result. */
export function resolvePlainScalar(text: string): PlainScalar {
  if (text !== '' && !v3.hints.test(text)) return undefined;
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  if (text.startsWith('.')) return floatValue(text, v3.dotFloat);
  const first = text.charCodeAt(0);
  if (first !== 0x2b && first !== 0x2d && (first < 0x30 || first > 0x39)) return undefined;
  const timestamp = timestampValue(text);
  if (timestamp !== undefined) return { value: timestamp };
  const plain = text.replaceAll('_', '');
  const integer = integerValue(plain);
  if (integer !== undefined) return { value: integer };
  return floatValue(plain, v3.float);
}

function integerValue(plain: string): number | undefined {
  const match = v3.integer.exec(plain);
  if (match === null) return undefined;
  const [, sign, hex, octal, binary, legacyOctal, decimal] = match;
  const digits =
    hex !== undefined
      ? `0x${hex}`
      : binary !== undefined
        ? `0b${binary}`
        : octal !== undefined || legacyOctal !== undefined
          ? `0o${octal ?? legacyOctal ?? ''}`
          : (decimal ?? '0');
  const magnitude = BigInt(digits);
  const value = sign === '-' ? -magnitude : magnitude;
  // ParseUint takes no sign: `+18446744073709551615` is out of both ranges.
  const limit = sign === '' ? UINT64_MAX : 2n ** 63n - 1n;
  if (value < INT64_MIN || value > limit) return undefined;
  return Number(value);
}

/** strconv.ParseFloat: a string when out of float64's range (`1e400`), zero when below it. */
function floatValue(text: string, pattern: RegExp): PlainScalar {
  if (!pattern.test(text)) return undefined;
  const value = Number(text.replaceAll('_', ''));
  return Number.isFinite(value) ? { value } : undefined;
}

/**
 * go-yaml v3's timestamps (GO_YAML_RULES.v3.timestamp), as JSON prints Go's time.Time: RFC 3339
 * with nanoseconds, trailing zeros dropped, `Z` for a zero offset.
 */
function timestampValue(text: string): string | undefined {
  const match = v3.timestamp.exec(text);
  if (match === null) return undefined;
  const [, year = '', month = '', day = '', t, space, hour, minute, second, fraction, zone] = match;
  if (!isDate(Number(year), Number(month), Number(day))) return undefined;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  if (hour === undefined) return `${date}T00:00:00Z`;
  // The `T` forms need a zone, the space form takes none.
  if ((t !== undefined) !== (zone !== undefined) || (space !== undefined && zone !== undefined))
    return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const nanos = (fraction ?? '').slice(0, 9).replace(/0+$/, '');
  const offset = zone === undefined || zone === 'Z' || /^[-+]00:00$/.test(zone) ? 'Z' : zone;
  return `${date}T${pad(hour)}:${pad(minute ?? '')}:${pad(second ?? '')}${nanos ? `.${nanos}` : ''}${offset}`;
}

function isDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  return day <= lastDay.getUTCDate();
}

function pad(digits: string): string {
  return digits.padStart(2, '0');
}

/** A type a scalar may be tagged with explicitly (`!!int 1`), besides `!!str`. */
export type ExplicitScalarType = (typeof v3.explicitTypes)[number];

/**
 * A scalar tagged `!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp` or `!!binary`, as go-yaml v3
 * reads it, else undefined: go-yaml refuses it. The text must read as that type plain (an int is
 * taken as a float too); a timestamp is printed as a plain one is; binary is base64, decoded to a string.
 */
export function resolveTaggedScalar(type: ExplicitScalarType, text: string): JsonValue | undefined {
  if (type === 'binary') return binaryValue(text);
  if (type === 'timestamp') return timestampValue(text);
  const resolved = resolvePlainScalar(text);
  if (resolved === undefined || !('value' in resolved)) return undefined;
  const { value } = resolved;
  switch (type) {
    case 'int':
      return integerValue(text.replaceAll('_', '')) === undefined ? undefined : value;
    case 'float':
      return typeof value === 'number' ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'null':
      return value === null ? null : undefined;
  }
}

/** Go's base64.StdEncoding: padded, line breaks skipped anywhere, nothing after the padding. */
const GO_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `!!binary`: go-yaml v3 decodes the base64 and keeps the bytes as a Go string, which JSON then
 * prints with each byte that starts no valid UTF-8 sequence as U+FFFD.
 */
function binaryValue(text: string): string | undefined {
  const base64 = text.replace(/[\r\n]/g, '');
  if (!GO_BASE64.test(base64)) return undefined;
  return goString(Buffer.from(base64, 'base64'));
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as Go's JSON encoder prints a string holding them: valid UTF-8 as is, each other byte as U+FFFD. */
function goString(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    let out = '';
    for (let at = 0; at < bytes.length;) {
      const length = utf8SequenceLength(bytes, at);
      if (length === 0) {
        out += '\uFFFD';
        at++;
      } else {
        out += STRICT_UTF8.decode(bytes.subarray(at, at + length));
        at += length;
      }
    }
    return out;
  }
}

/**
 * Unicode's table 3-7 of well-formed UTF-8, as Go's DecodeRune applies it: for each range of first
 * bytes, the sequence's length and the range its second byte must fall in (later bytes 0x80–0xBF).
 */
const UTF8_LEADS: readonly (readonly [
  first: number,
  last: number,
  length: number,
  low: number,
  high: number,
])[] = [
  [0xc2, 0xdf, 2, 0x80, 0xbf],
  [0xe0, 0xe0, 3, 0xa0, 0xbf],
  [0xe1, 0xec, 3, 0x80, 0xbf],
  [0xed, 0xed, 3, 0x80, 0x9f],
  [0xee, 0xef, 3, 0x80, 0xbf],
  [0xf0, 0xf0, 4, 0x90, 0xbf],
  [0xf1, 0xf3, 4, 0x80, 0xbf],
  [0xf4, 0xf4, 4, 0x80, 0x8f],
];

/** The length of the well-formed UTF-8 sequence at `at` (UTF8_LEADS), or 0. */
function utf8SequenceLength(bytes: Uint8Array, at: number): number {
  const first = bytes[at] ?? 0;
  if (first < 0x80) return 1;
  const lead = UTF8_LEADS.find(([from, to]) => first >= from && first <= to);
  if (lead === undefined) return 0;
  const [, , length, low, high] = lead;
  if (at + length > bytes.length) return 0;
  for (let next = at + 1; next < at + length; next++) {
    const byte = bytes[next] ?? 0;
    if (next === at + 1 ? byte < low || byte > high : byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}
