import { MAX_JSON_DEPTH, type JsonValue } from './json.ts';

/** Where a JSON stream stopped parsing: which document, on which line, and why. */
export class JsonStreamSyntaxError extends Error {
  readonly document: number;
  readonly line: number;
  constructor(document: number, line: number, detail: string, options?: { cause?: unknown }) {
    super(`JSON document ${String(document)} (line ${String(line)}) does not parse${detail}`, options);
    this.document = document;
    this.line = line;
  }
}

/**
 * The JSON values of a stream, as Go's json.Decoder reads files that hooks write: values one after
 * another, separated by whitespace or not at all (`{…}{…}`, one per line, or a single list).
 */
export function* parseJsonStream(text: string): Generator<JsonValue> {
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  for (let n = 1; ; n++) {
    while (i < text.length && ' \t\r\n'.includes(text.charAt(i))) i++;
    if (i >= text.length) return;
    const start = i;
    i = endOfJsonValue(text, i);
    if (i < 0) {
      const line = text.slice(0, start).split('\n').length;
      throw new JsonStreamSyntaxError(n, line, `: it nests deeper than ${String(MAX_JSON_DEPTH)} levels`);
    }
    try {
      yield JSON.parse(text.slice(start, i)) as JsonValue;
    } catch (error: unknown) {
      const line = text.slice(0, start).split('\n').length;
      const detail = error instanceof SyntaxError ? `: ${error.message}` : '';
      throw new JsonStreamSyntaxError(n, line, detail, { cause: error });
    }
  }
}

/**
 * The end of the JSON value starting at `i`: a balanced {…} or […], a string, or a bare word; -1
 * when it nests deeper than MAX_JSON_DEPTH.
 */
function endOfJsonValue(text: string, i: number): number {
  const first = text.charAt(i);
  if (first !== '{' && first !== '[' && first !== '"') {
    let j = i + 1;
    while (j < text.length && !' \t\r\n{}[]",'.includes(text.charAt(j))) j++;
    return j;
  }
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const c = text.charAt(j);
    if (inString) {
      if (c === '\\') j++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return j + 1;
      }
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > MAX_JSON_DEPTH) return -1;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return text.length;
}
