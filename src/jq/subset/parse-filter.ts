/**
 * The parser of the jq subset kaddon evaluates itself (docs/hooks.md "jq"). It accepts only what
 * evaluate-filter.ts implements; anything else (variables, reduce, def, formats, regular
 * expressions, comments, …) makes it return undefined, and the filter goes to jq unchanged.
 */

export type Node =
  | { readonly type: 'identity' }
  | { readonly type: 'literal'; readonly value: null | boolean | number | string }
  | { readonly type: 'field'; readonly target: Node; readonly name: string; readonly optional: boolean }
  | { readonly type: 'index'; readonly target: Node; readonly index: Node; readonly optional: boolean }
  | { readonly type: 'iterate'; readonly target: Node; readonly optional: boolean }
  | { readonly type: 'pipe'; readonly left: Node; readonly right: Node }
  | { readonly type: 'comma'; readonly left: Node; readonly right: Node }
  | { readonly type: 'binary'; readonly op: BinaryOp; readonly left: Node; readonly right: Node }
  | { readonly type: 'and' | 'or' | 'alternative'; readonly left: Node; readonly right: Node }
  | { readonly type: 'negate'; readonly operand: Node }
  | { readonly type: 'array'; readonly body: Node | undefined }
  | { readonly type: 'object'; readonly entries: readonly (readonly [Node, Node])[] }
  | { readonly type: 'string'; readonly parts: readonly (string | Node)[] }
  | { readonly type: 'if'; readonly branches: readonly (readonly [Node, Node])[]; readonly otherwise: Node }
  | { readonly type: 'try'; readonly body: Node }
  | { readonly type: 'call'; readonly name: string; readonly args: readonly Node[] };

export type BinaryOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';

/** Filters longer than this, or nested deeper, are left to jq: the subset stays cheap to compile. */
const MAX_LENGTH = 4000;
const MAX_DEPTH = 64;

type Token =
  | { readonly kind: 'op'; readonly text: string }
  | { readonly kind: 'field'; readonly text: string }
  | { readonly kind: 'ident'; readonly text: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'string'; readonly parts: readonly (string | Token[])[] };

class Unsupported extends Error {}

const OPERATORS = [
  '//',
  '==',
  '!=',
  '<=',
  '>=',
  '|',
  ',',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ':',
  '?',
  '.',
];
const KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'end', 'and', 'or', 'try', 'true', 'false', 'null']);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;

/** The filter's syntax tree, or undefined when it is outside the subset. */
export function parseFilter(filter: string): Node | undefined {
  if (filter.length > MAX_LENGTH) return undefined;
  try {
    const tokens = lex(filter);
    const parser = new Parser(tokens);
    const node = parser.pipe();
    if (!parser.done()) return undefined;
    return node;
  } catch (error: unknown) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    if (rest.startsWith('"')) {
      const { token, length } = lexString(text, at);
      tokens.push(token);
      at += length;
      continue;
    }
    const field = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
    if (field?.[1] !== undefined) {
      tokens.push({ kind: 'field', text: field[1] });
      at += field[0].length;
      continue;
    }
    if (rest.startsWith('..')) throw new Unsupported();
    const number = NUMBER.exec(rest);
    if (number && !(rest.startsWith('.') && !/^\.\d/.test(rest))) {
      tokens.push({ kind: 'number', value: Number(number[0]) });
      at += number[0].length;
      continue;
    }
    const ident = IDENT.exec(rest);
    if (ident) {
      // `::`-qualified names, `$__loc__` and the like are not in the subset.
      if (rest[ident[0].length] === ':' && rest[ident[0].length + 1] === ':') throw new Unsupported();
      tokens.push({ kind: 'ident', text: ident[0] });
      at += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => rest.startsWith(candidate));
    // Assignments (`=`, `|=`, `+=`, …), `?//`, `$var`, `@format`, `#` comments, `;` are left to jq.
    if (op === undefined || /^(?:[|+\-*/%]=|=[^=]|\?\/\/)/.test(rest)) throw new Unsupported();
    tokens.push({ kind: 'op', text: op });
    at += op.length;
  }
  return tokens;
}

/** A string literal, its `\(…)` interpolations lexed; its length in the text. */
function lexString(text: string, start: number): { token: Token; length: number } {
  const parts: (string | Token[])[] = [];
  let literal = '';
  let at = start + 1;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (char === '"') {
      if (literal !== '' || parts.length === 0) parts.push(literal);
      return { token: { kind: 'string', parts }, length: at + 1 - start };
    }
    if (char !== '\\') {
      literal += char;
      at++;
      continue;
    }
    const next = text[at + 1] ?? '';
    if (next === '(') {
      const end = closingParen(text, at + 2);
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push(lex(text.slice(at + 2, end)));
      at = end + 1;
      continue;
    }
    const simple: Record<string, string> = {
      '"': '"',
      '\\': '\\',
      '/': '/',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
    };
    const escaped = simple[next];
    if (escaped !== undefined) {
      literal += escaped;
      at += 2;
      continue;
    }
    const hex = /^u([0-9a-fA-F]{4})/.exec(text.slice(at + 1));
    if (!hex?.[1]) throw new Unsupported();
    const code = Number.parseInt(hex[1], 16);
    // Surrogate pairs written as two escapes: left to jq.
    if (code >= 0xd800 && code <= 0xdfff) throw new Unsupported();
    literal += String.fromCharCode(code);
    at += 6;
  }
  throw new Unsupported();
}

/** The index of the `)` closing an interpolation that starts at `from`, strings inside skipped. */
function closingParen(text: string, from: number): number {
  let depth = 0;
  for (let at = from; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      at += lexString(text, at).length - 1;
      continue;
    }
    if (char === '(') depth++;
    if (char === ')') {
      if (depth === 0) return at;
      depth--;
    }
  }
  throw new Unsupported();
}

class Parser {
  readonly #tokens: readonly Token[];
  #at = 0;
  #depth = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  done(): boolean {
    return this.#at >= this.#tokens.length;
  }

  pipe(): Node {
    this.#enter();
    const left = this.#comma();
    const node: Node = this.#eat('|') ? { type: 'pipe', left, right: this.pipe() } : left;
    this.#depth--;
    return node;
  }

  #comma(): Node {
    let node = this.#alternative();
    while (this.#eat(',')) node = { type: 'comma', left: node, right: this.#alternative() };
    return node;
  }

  #alternative(): Node {
    const left = this.#or();
    return this.#eat('//') ? { type: 'alternative', left, right: this.#alternative() } : left;
  }

  #or(): Node {
    let node = this.#and();
    while (this.#eatWord('or')) node = { type: 'or', left: node, right: this.#and() };
    return node;
  }

  #and(): Node {
    let node = this.#comparison();
    while (this.#eatWord('and')) node = { type: 'and', left: node, right: this.#comparison() };
    return node;
  }

  #comparison(): Node {
    const left = this.#additive();
    const op = this.#peekOp(['==', '!=', '<=', '>=', '<', '>']);
    if (op === undefined) return left;
    this.#at++;
    const node: Node = { type: 'binary', op, left, right: this.#additive() };
    // jq's comparisons do not chain.
    if (this.#peekOp(['==', '!=', '<=', '>=', '<', '>'])) throw new Unsupported();
    return node;
  }

  #additive(): Node {
    let node = this.#multiplicative();
    for (let op = this.#peekOp(['+', '-']); op; op = this.#peekOp(['+', '-'])) {
      this.#at++;
      node = { type: 'binary', op, left: node, right: this.#multiplicative() };
    }
    return node;
  }

  #multiplicative(): Node {
    let node = this.#unary();
    for (let op = this.#peekOp(['*', '/', '%']); op; op = this.#peekOp(['*', '/', '%'])) {
      this.#at++;
      node = { type: 'binary', op, left: node, right: this.#unary() };
    }
    return node;
  }

  #unary(): Node {
    if (this.#eat('-')) return { type: 'negate', operand: this.#postfix() };
    return this.#postfix();
  }

  #postfix(): Node {
    let node = this.#primary();
    for (;;) {
      const token = this.#tokens[this.#at];
      if (token?.kind === 'field') {
        this.#at++;
        node = { type: 'field', target: node, name: token.text, optional: this.#eat('?') };
      } else if (
        token?.kind === 'op' &&
        token.text === '.' &&
        this.#tokens[this.#at + 1]?.kind === 'string'
      ) {
        this.#at++;
        node = { type: 'field', target: node, name: this.#plainString(), optional: this.#eat('?') };
      } else if (
        token?.kind === 'op' &&
        (token.text === '[' || (token.text === '.' && this.#isOp(this.#at + 1, '[')))
      ) {
        if (token.text === '.') this.#at++;
        this.#at++;
        if (this.#eat(']')) {
          node = { type: 'iterate', target: node, optional: this.#eat('?') };
          continue;
        }
        const index = this.pipe();
        if (this.#peekOp([':'])) throw new Unsupported();
        this.#expect(']');
        node = { type: 'index', target: node, index, optional: this.#eat('?') };
      } else if (token?.kind === 'op' && token.text === '?') {
        this.#at++;
        node = { type: 'try', body: node };
      } else return node;
    }
  }

  #primary(): Node {
    const token = this.#tokens[this.#at];
    if (token === undefined) throw new Unsupported();
    this.#at++;
    switch (token.kind) {
      case 'field':
        return { type: 'field', target: { type: 'identity' }, name: token.text, optional: this.#eat('?') };
      case 'number':
        return { type: 'literal', value: token.value };
      case 'string':
        return stringNode(token);
      case 'ident':
        return this.#word(token.text);
      case 'op':
        return this.#opPrimary(token.text);
    }
  }

  #opPrimary(text: string): Node {
    if (text === '.') {
      // `."name"` and `.[…]` are postfix forms on identity.
      if (this.#tokens[this.#at]?.kind === 'string' || this.#isOp(this.#at, '[')) {
        this.#at--;
        return { type: 'identity' };
      }
      return { type: 'identity' };
    }
    if (text === '(') {
      const node = this.pipe();
      this.#expect(')');
      return node;
    }
    if (text === '[') {
      if (this.#eat(']')) return { type: 'array', body: undefined };
      const body = this.pipe();
      this.#expect(']');
      return { type: 'array', body };
    }
    if (text === '{') return this.#object();
    throw new Unsupported();
  }

  #word(word: string): Node {
    if (word === 'true' || word === 'false') return { type: 'literal', value: word === 'true' };
    if (word === 'null') return { type: 'literal', value: null };
    if (word === 'if') return this.#if();
    if (word === 'try') {
      const body = this.#postfix();
      if (this.#isWord('catch')) throw new Unsupported();
      return { type: 'try', body };
    }
    if (KEYWORDS.has(word)) throw new Unsupported();
    const args: Node[] = [];
    if (this.#eat('(')) {
      // Arguments are separated by `;`, which the lexer leaves to jq: one argument only.
      args.push(this.pipe());
      this.#expect(')');
    }
    return { type: 'call', name: word, args };
  }

  #if(): Node {
    const branches: [Node, Node][] = [];
    let condition = this.pipe();
    for (;;) {
      this.#expectWord('then');
      branches.push([condition, this.pipe()]);
      if (this.#eatWord('elif')) {
        condition = this.pipe();
        continue;
      }
      const otherwise: Node = this.#eatWord('else') ? this.pipe() : { type: 'identity' };
      this.#expectWord('end');
      return { type: 'if', branches, otherwise };
    }
  }

  #object(): Node {
    const entries: [Node, Node][] = [];
    if (this.#eat('}')) return { type: 'object', entries };
    do {
      const token = this.#tokens[this.#at];
      let key: Node;
      if (token?.kind === 'ident' && !KEYWORDS.has(token.text)) {
        this.#at++;
        key = { type: 'literal', value: token.text };
      } else if (token?.kind === 'ident' || token?.kind === 'string') {
        this.#at++;
        key = token.kind === 'ident' ? { type: 'literal', value: token.text } : stringNode(token);
      } else if (this.#eat('(')) {
        key = this.pipe();
        this.#expect(')');
      } else throw new Unsupported();
      // `{a}` is `{a: .a}`; `{"a"}` likewise.
      const value: Node = this.#eat(':')
        ? this.#objectValue()
        : key.type === 'literal' && typeof key.value === 'string'
          ? { type: 'field', target: { type: 'identity' }, name: key.value, optional: false }
          : unsupported();
      entries.push([key, value]);
    } while (this.#eat(','));
    this.#expect('}');
    return { type: 'object', entries };
  }

  /** An object value: jq parses it without `,` (which separates entries); `|` needs parentheses. */
  #objectValue(): Node {
    this.#enter();
    const node = this.#alternative();
    this.#depth--;
    return node;
  }

  #plainString(): string {
    const token = this.#tokens[this.#at];
    if (token?.kind !== 'string' || token.parts.length !== 1 || typeof token.parts[0] !== 'string')
      throw new Unsupported();
    this.#at++;
    return token.parts[0];
  }

  #enter(): void {
    this.#depth++;
    if (this.#depth > MAX_DEPTH) throw new Unsupported();
  }

  #isOp(at: number, text: string): boolean {
    const token = this.#tokens[at];
    return token?.kind === 'op' && token.text === text;
  }

  #isWord(word: string): boolean {
    const token = this.#tokens[this.#at];
    return token?.kind === 'ident' && token.text === word;
  }

  #peekOp<T extends string>(ops: readonly T[]): T | undefined {
    const token = this.#tokens[this.#at];
    return token?.kind === 'op' ? ops.find((op) => op === token.text) : undefined;
  }

  #eat(text: string): boolean {
    if (!this.#isOp(this.#at, text)) return false;
    this.#at++;
    return true;
  }

  #eatWord(word: string): boolean {
    if (!this.#isWord(word)) return false;
    this.#at++;
    return true;
  }

  #expect(text: string): void {
    if (!this.#eat(text)) throw new Unsupported();
  }

  #expectWord(word: string): void {
    if (!this.#eatWord(word)) throw new Unsupported();
  }
}

function stringNode(token: Extract<Token, { kind: 'string' }>): Node {
  const parts = token.parts.map((part) => {
    if (typeof part === 'string') return part;
    const parser = new Parser(part);
    const node = parser.pipe();
    if (!parser.done()) throw new Unsupported();
    return node;
  });
  if (parts.length === 1 && typeof parts[0] === 'string') return { type: 'literal', value: parts[0] };
  return { type: 'string', parts };
}

function unsupported(): never {
  throw new Unsupported();
}
