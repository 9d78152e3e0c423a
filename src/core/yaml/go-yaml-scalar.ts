import { GO_YAML_RULES } from './go-yaml-rules.ts';
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
const YAML11_BOOLEANS = new Set<string>([...GO_YAML_RULES.v2.trues, ...GO_YAML_RULES.v2.falses]);

/**
 * True for strings go-yaml v2's encoder double-quotes because its resolver would read them plain
 * as another type: what go-yaml v3 reads as a non-string (plain-scalar.ts, the same strconv-based
 * rules), and what GO_YAML_RULES.v2 adds: the YAML 1.1 booleans and sexagesimal numbers.
 */
export function isYaml11NonString(text: string): boolean {
  return (
    resolvePlainScalar(text) !== undefined ||
    YAML11_BOOLEANS.has(text) ||
    GO_YAML_RULES.v2.base60Float.test(text)
  );
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

/**
 * The writers below walk a string by UTF-16 unit and count columns in code points, as go-yaml
 * counts characters. Plain, single-quoted and literal scalars hold only printable characters of
 * the Basic Multilingual Plane (a surrogate is not printable, so analyze sends its string to
 * double quotes): there a unit is a character. Only double quotes meet astral characters.
 */
function unitsOf(code: number): number {
  return code > 0xffff ? 2 : 1;
}

const BREAKS = '\\n\\r\\u0085\\u2028\\u2029';
/** A character outside is_printable: astral characters too, whose surrogates are outside it. */
const NOT_PRINTABLE = /[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
const LINE_BREAK = new RegExp(`[${BREAKS}]`);
const BREAK_SPACE = new RegExp(`[${BREAKS}] `);
const SPACE_BREAK = new RegExp(` [${BREAKS}]`);
/** Past the first character: `: ` (or a colon at the end), and `#` after a blank or a break. */
const INNER_INDICATOR = new RegExp(`[\\s\\S]:(?:[ \\t]|$)|[ \\t${BREAKS}]#`);
const EMPTY_ANALYSIS: ScalarAnalysis = {
  multiline: false,
  blockPlainAllowed: true,
  singleQuotedAllowed: true,
  blockAllowed: false,
};

/**
 * go-yaml v2's yaml_emitter_analyze_scalar: which styles can hold the string. Its walk over the
 * characters is written as a few regular expressions, each one of its conditions.
 */
function analyze(text: string): ScalarAnalysis {
  if (text.length === 0) return EMPTY_ANALYSIS;
  const first = text.codePointAt(0) ?? 0;
  const size = unitsOf(first);
  const last = text.charCodeAt(text.length - 1);
  const followedByWhitespace = size >= text.length || isBlank(text.charCodeAt(size));
  const blockIndicators =
    isDocumentMarker(text) || isLeadingIndicator(first, followedByWhitespace) || INNER_INDICATOR.test(text);
  const special = NOT_PRINTABLE.test(text);
  const lineBreaks = LINE_BREAK.test(text);
  const trailingSpace = last === 0x20;
  const breakSpace = lineBreaks && BREAK_SPACE.test(text);
  const spaceBreak = lineBreaks && SPACE_BREAK.test(text);
  const noPlain = first === 0x20 || isBreak(first) || trailingSpace || isBreak(last) || lineBreaks;
  return {
    multiline: lineBreaks,
    blockPlainAllowed: !(noPlain || spaceBreak || special || blockIndicators),
    singleQuotedAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(trailingSpace || spaceBreak || special),
  };
}

function isDocumentMarker(text: string): boolean {
  const a = text.charCodeAt(0);
  return (a === 0x2d || a === 0x2e) && text.charCodeAt(1) === a && text.charCodeAt(2) === a;
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
  // go-yaml v2 writes the key `<<` plain, which every YAML 1.1 reader (kaddon, kustomize, helm)
  // then takes for a merge key; quoted it stays the string (docs/architecture.md "YAML").
  if (isKey && text === GO_YAML_RULES.mergeKey) style = 'double';
  if (style === 'plain' && (!analysis.blockPlainAllowed || (text === '' && isKey))) style = 'single';
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || isKey)) style = 'double';
  return style;
}

/**
 * The emitter's position while a scalar is written. The writers advance `column` past the
 * characters they pass over and copy each run of them at once (`copy`) before anything else is
 * written, so a long scalar costs a few slices rather than one step per character.
 */
class ScalarWriter {
  text = '';
  whitespace: boolean;
  indention: boolean;
  /** Where the run of source characters not yet copied starts. */
  private from = 0;

  constructor(
    public column: number,
    private readonly indent: number,
    atLineStart: boolean,
    private readonly source: string,
  ) {
    this.whitespace = atLineStart;
    this.indention = atLineStart;
  }

  /** Copies the source up to `to`, whose columns are already counted, and skips to `resume`. */
  copy(to: number, resume = to): void {
    if (to > this.from) this.text += this.source.slice(this.from, to);
    this.from = resume;
  }

  /** Writes text of the writer's own (indicators, escapes, indentation): ASCII, one column a unit. */
  put(text: string): void {
    this.text += text;
    this.column += text.length;
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
      this.text += String.fromCharCode(code);
      this.column = 0;
    }
  }
}

function writePlain(w: ScalarWriter, text: string, allowBreaks: boolean): void {
  if (!w.whitespace) w.put(' ');
  // A plain scalar neither starts nor ends with a space (analyze); it breaks only at a space
  // reached past BEST_WIDTH, so one that ends by then is written as it is.
  if (!allowBreaks || w.column + text.length - 1 <= BEST_WIDTH) {
    w.column += text.length;
    if (text.length > 0) w.indention = false;
    w.copy(text.length);
    return;
  }
  let spaces = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20) {
      if (!spaces && w.column > BEST_WIDTH && text.charCodeAt(i + 1) !== 0x20) {
        w.copy(i, i + 1);
        w.writeIndent();
      } else w.column++;
      spaces = true;
    } else {
      w.column++;
      w.indention = false;
      spaces = false;
    }
  }
  w.copy(text.length);
}

function writeSingleQuoted(w: ScalarWriter, text: string, allowBreaks: boolean): void {
  w.indicator("'", true, false, false);
  let spaces = false;
  let breaks = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x20) {
      const inside = i > 0 && i < text.length - 1;
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && inside && text.charCodeAt(i + 1) !== 0x20) {
        w.copy(i, i + 1);
        w.writeIndent();
      } else w.column++;
      spaces = true;
    } else if (isBreak(code)) {
      w.copy(i, i + 1);
      if (!breaks && code === 0x0a) w.putBreak();
      w.writeBreak(code);
      w.indention = true;
      breaks = true;
    } else {
      if (breaks) {
        w.copy(i);
        w.writeIndent();
      }
      if (code === 0x27) {
        w.copy(i, i + 1);
        w.put("''");
      } else w.column++;
      w.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  w.copy(text.length);
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

function writeDoubleQuoted(w: ScalarWriter, text: string, allowBreaks: boolean): void {
  w.indicator('"', true, false, false);
  let spaces = false;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i) ?? 0;
    const size = unitsOf(code);
    if (!isPrintable(code) || code === 0xfeff || isBreak(code) || code === 0x22 || code === 0x5c) {
      w.copy(i, i + size);
      w.put(escape(code));
      spaces = false;
    } else if (code === 0x20) {
      if (allowBreaks && !spaces && w.column > BEST_WIDTH && i > 0 && i + size < text.length) {
        w.copy(i, i + size);
        w.writeIndent();
        if (text.charCodeAt(i + size) === 0x20) w.put('\\');
      } else w.column++;
      spaces = true;
    } else {
      w.column++;
      spaces = false;
    }
    i += size;
  }
  w.copy(text.length);
  w.indicator('"', false, false, false);
}

/** yaml_emitter_write_block_scalar_hints: an indentation indicator and the chomping indicator. */
function blockHints(text: string): string {
  const first = text.charCodeAt(0);
  const indentation = first === 0x20 || isBreak(first) ? String(BEST_INDENT) : '';
  const last = text.charCodeAt(text.length - 1);
  if (!isBreak(last)) return `${indentation}-`;
  const keep = text.length === 1 || isBreak(text.charCodeAt(text.length - 2));
  return `${indentation}${keep ? '+' : ''}`;
}

const NEXT_BREAK = new RegExp(`[${BREAKS}]`, 'g');

/** Line by line: each run of characters between breaks is copied whole after its indentation. */
function writeLiteral(w: ScalarWriter, text: string): void {
  w.indicator('|', true, false, false);
  w.indicator(blockHints(text), false, false, false);
  w.putBreak();
  w.indention = true;
  w.whitespace = true;
  for (let i = 0; i < text.length;) {
    NEXT_BREAK.lastIndex = i;
    const end = NEXT_BREAK.exec(text)?.index ?? text.length;
    if (end > i) {
      w.writeIndent();
      w.column += end - i;
      w.indention = false;
    }
    if (end === text.length) break;
    w.copy(end, end + 1);
    w.writeBreak(text.charCodeAt(end));
    w.indention = true;
    i = end + 1;
  }
  w.copy(text.length);
}

/** How long a key go-yaml v2 still writes as a simple `key:` (yaml_emitter_check_simple_key). */
const MAX_SIMPLE_KEY_BYTES = 128;

/** Keys repeat across objects (`name`, `metadata`, …): the first this many are worked out once. */
const MAX_REMEMBERED_KEYS = 10_000;
const printedKeys = new Map<string, string | undefined>();

/**
 * A map key as go-yaml v2 writes it at the start of a line; undefined when it would write an
 * explicit `? key` instead (a key longer than 128 bytes or spanning lines).
 */
export function printKey(text: string): string | undefined {
  const remembered = printedKeys.get(text);
  if (remembered !== undefined || printedKeys.has(text)) return remembered;
  const printed = keyText(text);
  if (printedKeys.size < MAX_REMEMBERED_KEYS) printedKeys.set(text, printed);
  return printed;
}

function keyText(text: string): string | undefined {
  const analysis = analyze(text);
  if (analysis.multiline || Buffer.byteLength(text) > MAX_SIMPLE_KEY_BYTES) return undefined;
  const writer = new ScalarWriter(0, 0, true, text);
  write(writer, text, selectStyle(text, analysis, true), false);
  return writer.text;
}

/**
 * A string map value or sequence item as go-yaml v2 writes it after its key or dash, which end at
 * `column`; its continuation lines are indented `indent` spaces. Starts with the separating space
 * and ends without a line break: a literal block's last break is the end of its line.
 */
export function printValue(text: string, column: number, indent: number): string {
  const writer = new ScalarWriter(column, indent, false, text);
  write(writer, text, selectStyle(text, analyze(text), false), true);
  return writer.text.endsWith('\n') ? writer.text.slice(0, -1) : writer.text;
}

function write(writer: ScalarWriter, text: string, style: Style, allowBreaks: boolean): void {
  if (style === 'plain') writePlain(writer, text, allowBreaks);
  else if (style === 'single') writeSingleQuoted(writer, text, allowBreaks);
  else if (style === 'double') writeDoubleQuoted(writer, text, allowBreaks);
  else writeLiteral(writer, text);
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
 * other character, and runs of digits compared as numbers (`a9` before `a10`). Compares UTF-16
 * units while they are not surrogates, code points otherwise.
 */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const ac = a.charCodeAt(i);
    const bc = b.charCodeAt(i);
    if (isSurrogate(ac) || isSurrogate(bc)) return compareCodePoints(a, b);
    if (ac === bc) continue;
    const aLetter = isLetter(ac);
    const bLetter = isLetter(bc);
    if (aLetter && bLetter) return ac - bc;
    if (aLetter || bLetter) return aLetter ? 1 : -1;
    return compareDigitRuns(a, b, i) || ac - bc;
  }
  return a.length - b.length;
}

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

/** compareKeys on code points, for keys with characters past the Basic Multilingual Plane. */
function compareCodePoints(a: string, b: string): number {
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

/** A key's character at `i`: a UTF-16 unit of a string, or a code point of an array. */
function charAt(chars: string | readonly number[], i: number): number | undefined {
  return typeof chars === 'string' ? (i < chars.length ? chars.charCodeAt(i) : undefined) : chars[i];
}

function compareDigitRuns(ar: string | readonly number[], br: string | readonly number[], i: number): number {
  let an = 0n;
  let bn = 0n;
  const ac = charAt(ar, i);
  const bc = charAt(br, i);
  // A zero inside a number already begun counts as a digit of it, not as padding.
  if (ac === 0x30 || bc === 0x30) {
    for (let j = i - 1; j >= 0 && isDigit(charAt(ar, j)); j--) {
      if (charAt(ar, j) !== 0x30) {
        an = 1n;
        bn = 1n;
        break;
      }
    }
  }
  let ai = i;
  for (; ai < ar.length && isDigit(charAt(ar, ai)); ai++)
    an = an * 10n + BigInt((charAt(ar, ai) ?? 0x30) - 0x30);
  let bi = i;
  for (; bi < br.length && isDigit(charAt(br, bi)); bi++)
    bn = bn * 10n + BigInt((charAt(br, bi) ?? 0x30) - 0x30);
  if (an !== bn) return an < bn ? -1 : 1;
  return ai - bi;
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 0x30 && code <= 0x39;
}

const LETTER = /\p{L}/u;

function isLetter(code: number): boolean {
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return LETTER.test(String.fromCodePoint(code));
}
