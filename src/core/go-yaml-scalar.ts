import { resolvePlainScalar } from './plain-scalar.ts';

/**
 * Scalars, numbers and map-key order as kustomize prints them: its output goes through JSON and
 * go-yaml v2's encoder and emitter (sigs.k8s.io/yaml). This file follows that emitter's rules:
 * which style a string takes (plain, single-quoted, double-quoted, literal block), how each style
 * is written and where a long line breaks (at a space once past column 80). docs/architecture.md
 * "YAML" says where each rule comes from.
 */

/** go-yaml v2's best_width: a plain or quoted scalar breaks at the first space past this column. */
const BEST_WIDTH = 80;

/** go-yaml v2's best_indent, also the indentation indicator of a block scalar starting with a space. */
const BEST_INDENT = 2;

/** The YAML 1.1 booleans go-yaml v2 adds to go-yaml v3's resolve table. */
const YAML11_BOOLEANS = new Set('y Y yes Yes YES n N no No NO on On ON off Off OFF'.split(' '));

/** go-yaml v2's isBase60Float: `1:20` would read as a sexagesimal number in YAML 1.1. */
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * True for strings go-yaml v2's encoder double-quotes because its resolver would read them plain
 * as another type: what go-yaml v3 reads as a non-string (plain-scalar.ts, the same strconv-based
 * rules), the YAML 1.1 booleans, and sexagesimal numbers.
 */
export function isYaml11NonString(text: string): boolean {
  return resolvePlainScalar(text) !== undefined || YAML11_BOOLEANS.has(text) || BASE60_FLOAT.test(text);
}

interface ScalarAnalysis {
  readonly multiline: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

/** go-yaml v2's is_printable, on code points: what it may write unescaped. */
function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

function isBreak(code: number | undefined): boolean {
  return code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029;
}

function isBlank(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09;
}

/** go-yaml v2's yaml_emitter_analyze_scalar: which styles can hold the string. */
function analyze(chars: readonly number[]): ScalarAnalysis {
  if (chars.length === 0)
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = isDocumentMarker(chars);
  let special = false;
  let lineBreaks = false;
  let leadingSpaceOrBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  for (const [i, code] of chars.entries()) {
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || isBlank(next);
    if (i === 0) blockIndicators ||= isLeadingIndicator(code, followedByWhitespace);
    else if ((code === 0x3a && followedByWhitespace) || (code === 0x23 && precededByWhitespace))
      blockIndicators = true;
    if (!isPrintable(code)) special = true;
    const last = i === chars.length - 1;
    if (code === 0x20) {
      if (i === 0) leadingSpaceOrBreak = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(code)) {
      lineBreaks = true;
      if (i === 0) leadingSpaceOrBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(code) || isBreak(code);
  }
  const noPlain = leadingSpaceOrBreak || trailingSpace || trailingBreak || breakSpace || lineBreaks;
  return {
    multiline: lineBreaks,
    blockPlainAllowed: !(noPlain || spaceBreak || special || blockIndicators),
    singleQuotedAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(trailingSpace || spaceBreak || special),
  };
}

function isDocumentMarker(chars: readonly number[]): boolean {
  const [a, b, c] = chars;
  return a !== undefined && a === b && b === c && (a === 0x2d || a === 0x2e);
}

/** Characters that may not start a plain scalar in block context. */
function isLeadingIndicator(code: number, followedByWhitespace: boolean): boolean {
  if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(code))) return true;
  return (code === 0x3f || code === 0x3a || code === 0x2d) && followedByWhitespace;
}

type Style = 'plain' | 'single' | 'double' | 'literal';

/** go-yaml v2's encoder's choice (stringv), then the emitter's (yaml_emitter_select_scalar_style). */
function selectStyle(text: string, analysis: ScalarAnalysis, isKey: boolean): Style {
  let style: Style = text.includes('\n') ? 'literal' : isYaml11NonString(text) ? 'double' : 'plain';
  if (isKey && analysis.multiline) style = 'double';
  if (style === 'plain' && (!analysis.blockPlainAllowed || (text === '' && isKey))) style = 'single';
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || isKey)) style = 'double';
  return style;
}

/** The emitter's position while a scalar is written. */
class ScalarWriter {
  text = '';
  whitespace: boolean;
  indention: boolean;

  constructor(
    public column: number,
    private readonly indent: number,
    atLineStart: boolean,
  ) {
    this.whitespace = atLineStart;
    this.indention = atLineStart;
  }

  put(text: string): void {
    this.text += text;
    this.column += codePoints(text).length; // go-yaml counts columns in characters
  }

  putBreak(): void {
    this.text += '\n';
    this.column = 0;
  }

  /** yaml_emitter_write_indent. */
  writeIndent(): void {
    if (!this.indention || this.column > this.indent || (this.column === this.indent && !this.whitespace))
      this.putBreak();
    if (this.column < this.indent) this.put(' '.repeat(this.indent - this.column));
    this.whitespace = true;
    this.indention = true;
  }

  /** yaml_emitter_write_indicator. */
  indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(text);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** A line break inside a quoted scalar: `\n` is doubled, other breaks are written as they are. */
  writeBreak(code: number): void {
    if (code === 0x0a) this.putBreak();
    else {
      this.text += String.fromCodePoint(code);
      this.column = 0;
    }
  }
}

function writePlain(w: ScalarWriter, chars: readonly number[], allowBreaks: boolean): void {
  if (!w.whitespace) w.put(' ');
  let spaces = false;
  for (const [i, code] of chars.entries()) {
    if (code === 0x20) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && chars[i + 1] !== 0x20) w.writeIndent();
      else w.put(' ');
      spaces = true;
    } else {
      w.put(String.fromCodePoint(code));
      w.indention = false;
      spaces = false;
    }
  }
}

function writeSingleQuoted(w: ScalarWriter, chars: readonly number[], allowBreaks: boolean): void {
  w.indicator("'", true, false, false);
  let spaces = false;
  let breaks = false;
  for (const [i, code] of chars.entries()) {
    if (code === 0x20) {
      const inside = i > 0 && i < chars.length - 1;
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && inside && chars[i + 1] !== 0x20) w.writeIndent();
      else w.put(' ');
      spaces = true;
    } else if (isBreak(code)) {
      if (!breaks && code === 0x0a) w.putBreak();
      w.writeBreak(code);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      w.put(code === 0x27 ? "''" : String.fromCodePoint(code));
      w.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  w.indicator("'", false, false, false);
}

const ESCAPES = new Map<number, string>([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
]);

function escape(code: number): string {
  const named = ESCAPES.get(code);
  if (named !== undefined) return `\\${named}`;
  const [prefix, width] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
  return `\\${prefix}${code.toString(16).toUpperCase().padStart(width, '0')}`;
}

function writeDoubleQuoted(w: ScalarWriter, chars: readonly number[], allowBreaks: boolean): void {
  w.indicator('"', true, false, false);
  let spaces = false;
  for (const [i, code] of chars.entries()) {
    if (!isPrintable(code) || code === 0xfeff || isBreak(code) || code === 0x22 || code === 0x5c) {
      w.put(escape(code));
      spaces = false;
    } else if (code === 0x20) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
        w.writeIndent();
        if (chars[i + 1] === 0x20) w.put('\\');
      } else w.put(' ');
      spaces = true;
    } else {
      w.put(String.fromCodePoint(code));
      spaces = false;
    }
  }
  w.indicator('"', false, false, false);
}

/** yaml_emitter_write_block_scalar_hints: an indentation indicator and the chomping indicator. */
function blockHints(chars: readonly number[]): string {
  const [first] = chars;
  const indentation = first === 0x20 || isBreak(first) ? String(BEST_INDENT) : '';
  const last = chars.at(-1);
  if (!isBreak(last)) return `${indentation}-`;
  const keep = chars.length === 1 || isBreak(chars.at(-2));
  return `${indentation}${keep ? '+' : ''}`;
}

function writeLiteral(w: ScalarWriter, chars: readonly number[]): void {
  w.indicator('|', true, false, false);
  w.indicator(blockHints(chars), false, false, false);
  w.putBreak();
  w.indention = true;
  w.whitespace = true;
  let breaks = true;
  for (const code of chars) {
    if (isBreak(code)) {
      w.writeBreak(code);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) w.writeIndent();
      w.put(String.fromCodePoint(code));
      w.indention = false;
      breaks = false;
    }
  }
}

/** How long a key go-yaml v2 still writes as a simple `key:` (yaml_emitter_check_simple_key). */
const MAX_SIMPLE_KEY_BYTES = 128;

/**
 * A map key as go-yaml v2 writes it at the start of a line; undefined when it would write an
 * explicit `? key` instead (a key longer than 128 bytes or spanning lines).
 */
export function printKey(text: string): string | undefined {
  const chars = codePoints(text);
  const analysis = analyze(chars);
  if (analysis.multiline || Buffer.byteLength(text) > MAX_SIMPLE_KEY_BYTES) return undefined;
  const writer = new ScalarWriter(0, 0, true);
  write(writer, chars, selectStyle(text, analysis, true), false);
  return writer.text;
}

/**
 * A string map value or sequence item as go-yaml v2 writes it after its key or dash, which end at
 * `column`; its continuation lines are indented `indent` spaces. Starts with the separating space
 * and ends without a line break: a literal block's last break is the end of its line.
 */
export function printValue(text: string, column: number, indent: number): string {
  const chars = codePoints(text);
  const writer = new ScalarWriter(column, indent, false);
  write(writer, chars, selectStyle(text, analyze(chars), false), true);
  return writer.text.endsWith('\n') ? writer.text.slice(0, -1) : writer.text;
}

function write(writer: ScalarWriter, chars: readonly number[], style: Style, allowBreaks: boolean): void {
  if (style === 'plain') writePlain(writer, chars, allowBreaks);
  else if (style === 'single') writeSingleQuoted(writer, chars, allowBreaks);
  else if (style === 'double') writeDoubleQuoted(writer, chars, allowBreaks);
  else writeLiteral(writer, chars);
}

function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const char of text) out.push(char.codePointAt(0) ?? 0);
  return out;
}

const INT64_MIN = -(2 ** 63);
const UINT64_LIMIT = 2 ** 64;

/**
 * A number as kustomize prints it: Go's JSON encoding writes a whole number below 1e21 with all
 * its digits, which go-yaml v2 reads back as an integer while it fits 64 bits; every other number
 * is a float, which go-yaml v2 writes as Go's `%g` does (exponent form from 1e6 and below 1e-4,
 * at least two exponent digits). Undefined for an infinity or NaN, which JSON cannot hold.
 */
export function printNumber(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  // BigInt writes every digit of an integer past 2^53, as Go writes an int64 or uint64.
  if (Number.isInteger(value) && value >= INT64_MIN && value < UINT64_LIMIT) return BigInt(value).toString();
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (Number.isInteger(value) || exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

/**
 * go-yaml v2's order of map keys (its sorter.go): character by character, a letter after any
 * other character, and runs of digits compared as numbers (`a9` before `a10`).
 */
export function compareKeys(a: string, b: string): number {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] ?? 0;
    const bc = br[i] ?? 0;
    if (ac === bc) continue;
    const aLetter = isLetter(ac);
    const bLetter = isLetter(bc);
    if (aLetter && bLetter) return ac - bc;
    if (aLetter || bLetter) return aLetter ? 1 : -1;
    return compareDigitRuns(ar, br, i) || ac - bc;
  }
  return ar.length - br.length;
}

function compareDigitRuns(ar: readonly number[], br: readonly number[], i: number): number {
  let an = 0n;
  let bn = 0n;
  const ac = ar[i];
  const bc = br[i];
  // A zero inside a number already begun counts as a digit of it, not as padding.
  if (ac === 0x30 || bc === 0x30) {
    for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
      if (ar[j] !== 0x30) {
        an = 1n;
        bn = 1n;
        break;
      }
    }
  }
  let ai = i;
  for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt((ar[ai] ?? 0x30) - 0x30);
  let bi = i;
  for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt((br[bi] ?? 0x30) - 0x30);
  if (an !== bn) return an < bn ? -1 : 1;
  return ai - bi;
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 0x30 && code <= 0x39;
}

const LETTER = /\p{L}/u;

function isLetter(code: number): boolean {
  return LETTER.test(String.fromCodePoint(code));
}
