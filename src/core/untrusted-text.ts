/**
 * Text from hooks and other untrusted sources, made fit to leave the operator (docs/hooks.md "What
 * of a hook's output leaves the operator"): in a Kubernetes object, an Event, a metric label.
 */

/** ANSI escape sequences: CSI (`ESC [` or the 8-bit CSI), OSC (to BEL or ST), and two-byte escapes. */
const ANSI_ESCAPE =
  // eslint-disable-next-line no-control-regex -- escape sequences are what this finds
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;

/**
 * Characters that change how text around them shows: C0 and C1 controls and DEL (tab and line feed
 * apart), and the Unicode bidirectional controls, which can make a text read otherwise than it is.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * What a terminal must not be handed raw: the controls above (tab and line feed apart) and the line
 * and paragraph separators, which some terminals and viewers break lines at.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const REPLACEMENT = '\uFFFD';
const ELLIPSIS = '…';

export interface CleanTextOptions {
  /** At most this many UTF-8 bytes, an ellipsis included when the text was cut. */
  readonly maxBytes: number;
  /** Keep line feeds (a message of several lines); otherwise they are replaced too. */
  readonly keepLineFeeds?: boolean;
}

/**
 * The text with ANSI escapes removed, other control characters, bidirectional controls and lone
 * surrogates replaced by U+FFFD, and cut to `maxBytes` with an ellipsis.
 */
export function cleanText(text: string, options: CleanTextOptions): string {
  let out = text.replace(ANSI_ESCAPE, '').replace(CONTROL, REPLACEMENT);
  out = out.replace(LONE_SURROGATE, REPLACEMENT);
  if (options.keepLineFeeds !== true) out = out.replace(/[\t\n]/g, ' ');
  return cutToBytes(out, options.maxBytes);
}

/**
 * The text with each character a terminal would act on (an escape sequence's ESC, C1 controls, bidi
 * controls, carriage return…) written as its `\uXXXX` escape, tab and line feed kept: what it held
 * stays readable and does nothing. In JSON text this is the same JSON, as such characters can only be
 * inside its strings.
 */
export function escapeForTerminal(text: string): string {
  return text.replace(LONE_SURROGATE, escapeCharacter).replace(TERMINAL_UNSAFE, escapeCharacter);
}

function escapeCharacter(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** True when the text holds a control character, a bidirectional control or a lone surrogate. */
export function hasUnsafeCharacters(text: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return UNSAFE.test(text) || LONE_SURROGATE.test(text);
}

/** The text cut to at most `maxBytes` UTF-8 bytes at a character boundary, with an ellipsis if cut. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const room = Math.max(0, maxBytes - Buffer.byteLength(ELLIPSIS));
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > room) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}${ELLIPSIS}`;
}
