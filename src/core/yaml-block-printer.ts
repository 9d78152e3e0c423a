import type { JsonObject, JsonValue } from './json.ts';

/**
 * How a scalar reads in the printer's style, as the `yaml` library prints it, for strings and keys
 * the block printer cannot decide alone. A value is one line, or a literal block scalar as it
 * prints under a key at the top (`|-` and its lines indented two spaces); a key is one line.
 * Undefined when the library would print it some other way (a folded block, an explicit key).
 */
export interface ScalarStyler {
  value(text: string): string | undefined;
  key(text: string): string | undefined;
}

/**
 * Multi-line strings the library prints as `|` or `|-` with nothing else to decide: they start
 * with a visible character, hold no control character (tabs included) or Unicode line break, and
 * end with a visible character and at most one line break (`|+` and quoting are the library's).
 */
const SIMPLE_BLOCK =
  // eslint-disable-next-line no-control-regex -- control characters are what this excludes
  /^(?=[^\s])(?:[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\n)*\n(?:[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\n)*(?<=[^\s])\n?$/;

/** The library prints a string as a literal block scalar (`|` or `|-`, no indentation indicator). */
const LITERAL_BLOCK = /^\|-?\n/;

/** Lines are at most this wide; a scalar that could reach it may be folded, which only the library does. */
const LINE_WIDTH = 78;

/** Strings that print plain whatever their place: a letter, then letters, digits and `_./-`. */
const PLAIN = /^[A-Za-z][\w./-]*$/;

/**
 * Words a YAML 1.1 reader takes for a boolean or null: printed double-quoted, as go-yaml v2 does
 * (docs/differences-from-kustomize.md).
 */
const YAML11_WORDS = new Set(
  'y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL'.split(
    ' ',
  ),
);

/**
 * Prints a JSON object as the block-style YAML document `stringifyYaml` makes with the `yaml`
 * library (keys sorted, sequences not indented under their key), without building the library's
 * node tree: printing dominates the time of large builds (docs/performance.md). Scalars it cannot
 * place by itself are asked of `styler`, which answers from the library. Returns undefined when
 * the document holds what only the library can lay out (a foldable string, a block scalar with an
 * indentation indicator or kept line breaks); the caller then prints it with the library.
 */
export function printBlockDocument(value: JsonObject, styler: ScalarStyler): string | undefined {
  const lines: string[] = [];
  if (Object.keys(value).length === 0) return undefined;
  return printMap(value, '', lines, styler) ? `${lines.join('\n')}\n` : undefined;
}

function printMap(map: JsonObject, indent: string, lines: string[], styler: ScalarStyler): boolean {
  for (const key of Object.keys(map).sort()) {
    const value = map[key];
    if (value === undefined) continue; // as the library does, which leaves such keys out
    const keyText = PLAIN.test(key) && !YAML11_WORDS.has(key) ? key : styler.key(key);
    if (keyText === undefined) return false;
    if (!printEntry(value, `${indent}${keyText}:`, indent, lines, styler)) return false;
  }
  return true;
}

function printSequence(
  items: readonly JsonValue[],
  indent: string,
  lines: string[],
  styler: ScalarStyler,
): boolean {
  for (const item of items) {
    if (!printEntry(item, `${indent}-`, indent, lines, styler, true)) return false;
  }
  return true;
}

/**
 * Prints one map value or sequence item after `head`. A nested collection starts on the next line,
 * except a sequence item's, whose first line shares the `- `.
 */
function printEntry(
  value: JsonValue,
  head: string,
  indent: string,
  lines: string[],
  styler: ScalarStyler,
  inSequence = false,
): boolean {
  if (value === null || typeof value !== 'object') {
    const text = scalarText(value, styler, head.length + 1, `${indent}  `);
    if (text === undefined) return false;
    lines.push(`${head} ${text}`);
    return true;
  }
  const isList = Array.isArray(value);
  const empty = isList ? value.length === 0 : Object.keys(value).length === 0;
  if (empty) {
    lines.push(`${head} ${isList ? '[]' : '{}'}`);
    return true;
  }
  // A sequence under a key is not indented (kustomize's style); anything else nests two spaces.
  const inner = isList && !inSequence ? indent : `${indent}  `;
  const first = lines.length;
  const printed = isList ? printSequence(value, inner, lines, styler) : printMap(value, inner, lines, styler);
  if (!printed) return false;
  if (inSequence) lines[first] = `${head} ${(lines[first] ?? '').slice(inner.length)}`;
  else lines.splice(first, 0, head);
  return true;
}

/**
 * A scalar's text starting at `column`, a block scalar's lines indented by `blockIndent`; undefined
 * if the library might lay it out otherwise there (fold it, or choose a folded block).
 */
function scalarText(
  value: string | number | boolean | null,
  styler: ScalarStyler,
  column: number,
  blockIndent: string,
): string | undefined {
  if (typeof value !== 'string') return typeof value === 'number' ? numberText(value) : String(value);
  let text: string | undefined = value;
  if (PLAIN.test(value)) {
    if (YAML11_WORDS.has(value)) return `"${value}"`;
  } else if (SIMPLE_BLOCK.test(value)) {
    const clipped = value.endsWith('\n');
    const body = (clipped ? value.slice(0, -1) : value).replace(/\n(?=.)/g, '\n  ');
    return literalBlock(value, `${clipped ? '|' : '|-'}\n  ${body}`, blockIndent);
  } else text = styler.value(value);
  if (text === undefined) return undefined;
  if (text.includes('\n')) return literalBlock(value, text, blockIndent);
  // The library folds only at spaces (and escapes), and moves a scalar starting too far right.
  const fits = column + text.length <= LINE_WIDTH || (!/[ \\]/.test(text) && column <= LINE_WIDTH - 8);
  return fits ? text : undefined;
}

function numberText(value: number): string | undefined {
  if (Number.isSafeInteger(value)) return String(value);
  return Number.isFinite(value) ? JSON.stringify(value) : undefined;
}

/**
 * A literal block scalar moved to `indent`. The library chooses a folded block instead when a line
 * of the string does not fit the width at that indent, so such a string is left to it.
 */
function literalBlock(value: string, styled: string, indent: string): string | undefined {
  if (!LITERAL_BLOCK.test(styled)) return undefined;
  const limit = LINE_WIDTH + 2 - indent.length;
  if (value.split('\n').some((line) => line.length > limit)) return undefined;
  return styled.replace(/\n {2}/g, `\n${indent}`);
}
