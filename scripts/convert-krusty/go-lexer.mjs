/**
 * Tokens of Go source, for the subset kustomize's api/krusty tests are written in: identifiers,
 * number, string and rune literals, operators, and the semicolons Go inserts at line ends
 * (the Go spec, "Semicolons").
 */

// prettier-ignore
const OPERATORS = [
  '<<=', '>>=', '&^=', '...', '&&', '||', '<-', '++', '--', '==', '!=', '<=', '>=', ':=', '+=', '-=',
  '*=', '/=', '%=', '&=', '|=', '^=', '<<', '>>', '&^', '+', '-', '*', '/', '%', '&', '|', '^', '<',
  '>', '=', '!', '(', ')', '[', ']', '{', '}', ',', ';', '.', ':', '~',
];

const ENDS_STATEMENT_KEYWORDS = new Set(['break', 'continue', 'fallthrough', 'return']);
const ENDS_STATEMENT_OPERATORS = new Set(['++', '--', ')', ']', '}']);

// prettier-ignore
const ESCAPES = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/** Whether a line break after this token ends the statement. */
function endsStatement(token) {
  if (token === undefined) return false;
  if (token.kind === 'ident') return true;
  if (token.kind === 'string' || token.kind === 'number' || token.kind === 'rune') return true;
  if (token.kind === 'keyword') return ENDS_STATEMENT_KEYWORDS.has(token.value);
  return ENDS_STATEMENT_OPERATORS.has(token.value);
}

// prettier-ignore
const KEYWORDS = new Set([
  'break', 'case', 'chan', 'const', 'continue', 'default', 'defer', 'else', 'fallthrough', 'for',
  'func', 'go', 'goto', 'if', 'import', 'interface', 'map', 'package', 'range', 'return', 'select',
  'struct', 'switch', 'type', 'var',
]);

/** Reads the escape sequence at text[i] (after the backslash); returns the character and the next index. */
function readEscape(text, i) {
  const c = text[i];
  if (c in ESCAPES) return [ESCAPES[c], i + 1];
  if (c === 'x') return [String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16)), i + 3];
  if (c === 'u') return [String.fromCodePoint(parseInt(text.slice(i + 1, i + 5), 16)), i + 5];
  if (c === 'U') return [String.fromCodePoint(parseInt(text.slice(i + 1, i + 9), 16)), i + 9];
  if (c >= '0' && c <= '7') return [String.fromCharCode(parseInt(text.slice(i, i + 3), 8)), i + 3];
  throw new Error(`unknown escape \\${c}`);
}

/**
 * An interpreted string or rune literal. Go strings are bytes and `\xNN` is one byte; here it becomes
 * the character U+00NN, which is the same for the ASCII the tests write with it.
 */
function readInterpreted(text, start, quote) {
  let value = '';
  let i = start + 1;
  while (text[i] !== quote) {
    if (i >= text.length || text[i] === '\n') throw new Error(`unterminated literal at ${start}`);
    if (text[i] === '\\') {
      const [c, next] = readEscape(text, i + 1);
      value += c;
      i = next;
    } else {
      const cp = text.codePointAt(i);
      value += String.fromCodePoint(cp);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return [value, i + 1];
}

/** The tokens of a Go file, each `{ kind, value, line }`. */
export function tokenize(text) {
  const tokens = [];
  let line = 1;
  let i = 0;
  const push = (kind, value) => tokens.push({ kind, value, line });
  const lineBreak = () => {
    if (endsStatement(tokens.at(-1))) push('op', ';');
    line++;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      lineBreak();
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end);
      if (comment.includes('\n')) lineBreak();
      line += (comment.match(/\n/g) ?? []).length - (comment.includes('\n') ? 1 : 0);
      i = end + 2;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 200));
      const word = match[0];
      push(KEYWORDS.has(word) ? 'keyword' : 'ident', word);
      i += word.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const match =
        /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9_]*\.?[0-9_]*([eE][+-]?[0-9]+)?)i?/.exec(
          text.slice(i, i + 100),
        );
      push('number', match[0]);
      i += match[0].length;
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      const raw = text.slice(i + 1, end);
      // Carriage returns are discarded from raw string literals (the Go spec, "String literals").
      push('string', raw.replaceAll('\r', ''));
      line += (raw.match(/\n/g) ?? []).length;
      i = end + 1;
    } else if (c === '"') {
      const [value, next] = readInterpreted(text, i, '"');
      push('string', value);
      i = next;
    } else if (c === "'") {
      const [value, next] = readInterpreted(text, i, "'");
      push('rune', value.codePointAt(0));
      i = next;
    } else {
      const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
      if (op === undefined) throw new Error(`line ${line}: unexpected character ${JSON.stringify(c)}`);
      push('op', op);
      i += op.length;
    }
  }
  if (endsStatement(tokens.at(-1))) push('op', ';');
  push('eof', '');
  return tokens;
}
