import { tokenize } from './go-lexer.mjs';

/**
 * A parser for the part of Go that kustomize's api/krusty tests are written in: declarations,
 * statements and expressions, into plain objects `{ t: 'Kind', ... }` that go-evaluator.mjs runs.
 * Types are parsed into descriptors (enough to know a zero value and a composite literal's element
 * type); generics, channels and goroutines are not needed and not parsed.
 */

// prettier-ignore
const BINARY_PRECEDENCE = {
  '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 3, '<=': 3, '>': 3, '>=': 3, '+': 4, '-': 4, '|': 4,
  '^': 4, '*': 5, '/': 5, '%': 5, '<<': 5, '>>': 5, '&': 5, '&^': 5,
};
const ASSIGN_OPS = new Set(['=', ':=', '+=', '-=', '*=', '/=', '%=', '|=', '&=', '^=', '<<=', '>>=']);

class GoSyntaxError extends Error {}

class Parser {
  constructor(text, file) {
    this.tokens = tokenize(text);
    this.pos = 0;
    this.file = file;
    // Inside the header of if/for/switch, `T {` opens the block, not a composite literal.
    this.noCompositeLit = false;
  }

  get tok() {
    return this.tokens[this.pos];
  }

  peek(offset = 1) {
    return this.tokens[this.pos + offset];
  }

  is(value) {
    return (this.tok.kind === 'op' || this.tok.kind === 'keyword') && this.tok.value === value;
  }

  next() {
    return this.tokens[this.pos++];
  }

  accept(value) {
    if (!this.is(value)) return false;
    this.pos++;
    return true;
  }

  expect(value) {
    if (!this.accept(value)) this.fail(`expected '${value}'`);
  }

  ident() {
    if (this.tok.kind !== 'ident') this.fail('expected an identifier');
    return this.next().value;
  }

  fail(message) {
    throw new GoSyntaxError(
      `${this.file}:${this.tok.line}: ${message}, found ${this.tok.kind} '${this.tok.value}'`,
    );
  }

  skipSemicolons() {
    while (this.accept(';'));
  }

  // ---- declarations

  file_() {
    const decls = [];
    this.skipSemicolons();
    this.expect('package');
    this.ident();
    this.skipSemicolons();
    while (this.tok.kind !== 'eof') {
      if (this.accept('import')) this.importDecl();
      else if (this.is('func')) decls.push(this.funcDecl());
      else decls.push(...this.declStmt().decls);
      this.skipSemicolons();
    }
    return decls;
  }

  importDecl() {
    const one = () => {
      if (this.tok.kind === 'ident' || this.is('.')) this.next();
      if (this.tok.kind !== 'string') this.fail('expected an import path');
      this.next();
    };
    if (this.accept('(')) {
      this.skipSemicolons();
      while (!this.accept(')')) {
        one();
        this.skipSemicolons();
      }
    } else one();
  }

  funcDecl() {
    const line = this.tok.line;
    this.expect('func');
    let receiver;
    if (this.is('(')) receiver = this.params();
    const name = this.ident();
    const params = this.params();
    const results = this.results();
    const body = this.is('{') ? this.block() : undefined;
    return { t: 'Func', name, receiver, params, results, body, line, file: this.file };
  }

  /** A parameter list: `(a, b string, c int)` or `(string, int)`, as `{ names, type, variadic }`. */
  params() {
    this.expect('(');
    const groups = [];
    while (!this.accept(')')) {
      const variadic = this.accept('...');
      groups.push({ first: variadic ? undefined : this.tryIdentThenType(), variadic });
      if (!this.is(')')) this.expect(',');
    }
    // Group `a, b T`: identifiers without a type share the next group's type.
    const out = [];
    let pending = [];
    for (const group of groups) {
      const { first } = group;
      if (first && first.name !== undefined && first.type === undefined) pending.push(first.name);
      else if (first && first.name !== undefined) {
        out.push({ names: [...pending, first.name], type: first.type, variadic: first.variadic });
        pending = [];
      } else out.push({ names: ['_'], type: first?.type, variadic: group.variadic });
    }
    for (const name of pending) out.push({ names: ['_'], type: { k: 'name', name } });
    return out;
  }

  tryIdentThenType() {
    if (this.tok.kind === 'ident' && !this.peekIs(1, '.')) {
      const name = this.next().value;
      if (this.is(',') || this.is(')')) return { name };
      const variadic = this.accept('...');
      return { name, type: this.type(), variadic };
    }
    if (this.accept('...')) return { type: this.type(), variadic: true };
    return { type: this.type() };
  }

  peekIs(offset, value) {
    const token = this.peek(offset);
    return token !== undefined && token.kind === 'op' && token.value === value;
  }

  results() {
    if (this.is('(')) return this.params();
    if (this.is('{') || this.is(';') || this.is(')') || this.is(',') || this.is(']') || this.is('}')) {
      return [];
    }
    if (this.tok.kind === 'string' || this.is('=')) return [];
    return [{ names: ['_'], type: this.type() }];
  }

  // ---- types

  type() {
    if (this.accept('*')) return { k: 'ptr', elem: this.type() };
    if (this.accept('(')) {
      const type = this.type();
      this.expect(')');
      return type;
    }
    if (this.accept('[')) {
      if (this.accept(']')) return { k: 'slice', elem: this.type() };
      if (!this.accept('...')) this.expr();
      this.expect(']');
      return { k: 'array', elem: this.type() };
    }
    if (this.accept('map')) {
      this.expect('[');
      const key = this.type();
      this.expect(']');
      return { k: 'map', key, elem: this.type() };
    }
    if (this.accept('chan')) return { k: 'chan', elem: this.type() };
    if (this.is('<-')) this.fail('receive-only channels are not supported');
    if (this.accept('func')) {
      this.params();
      this.results();
      return { k: 'func' };
    }
    if (this.accept('interface')) {
      this.skipBraces();
      return { k: 'interface' };
    }
    if (this.accept('struct')) return this.structType();
    const name = this.ident();
    if (this.accept('.')) return { k: 'name', pkg: name, name: this.ident() };
    return { k: 'name', name };
  }

  structType() {
    this.expect('{');
    const fields = [];
    this.skipSemicolons();
    while (!this.accept('}')) {
      const names = [];
      if (this.tok.kind === 'ident' && (this.peekIs(1, ',') || !this.peekIs(1, '.'))) {
        if (this.peekIs(1, ';') || this.peekIs(1, '}')) {
          const name = this.ident();
          fields.push({ name, type: { k: 'name', name }, embedded: true });
          this.skipSemicolons();
          continue;
        }
        names.push(this.ident());
        while (this.accept(',')) names.push(this.ident());
      }
      const type = this.type();
      if (this.tok.kind === 'string') this.next();
      if (names.length === 0) fields.push({ name: type.name, type, embedded: true });
      for (const name of names) fields.push({ name, type });
      this.skipSemicolons();
    }
    return { k: 'struct', fields };
  }

  skipBraces() {
    this.expect('{');
    let depth = 1;
    while (depth > 0) {
      if (this.is('{')) depth++;
      if (this.is('}')) depth--;
      this.next();
    }
  }

  // ---- statements

  block() {
    this.expect('{');
    const saved = this.noCompositeLit;
    this.noCompositeLit = false;
    const stmts = this.stmtList();
    this.noCompositeLit = saved;
    this.expect('}');
    return { t: 'Block', stmts };
  }

  stmtList() {
    const stmts = [];
    this.skipSemicolons();
    while (!this.is('}') && !this.is('case') && !this.is('default') && this.tok.kind !== 'eof') {
      stmts.push(this.stmt());
      this.skipSemicolons();
    }
    return stmts;
  }

  stmt() {
    const line = this.tok.line;
    const stmt = this.stmtAt();
    stmt.line ??= line;
    return stmt;
  }

  stmtAt() {
    if (this.is('var') || this.is('const') || this.is('type')) return this.declStmt();
    if (this.accept('return')) {
      const results = this.is(';') || this.is('}') ? [] : this.exprList();
      return { t: 'Return', results };
    }
    if (this.is('if')) return this.ifStmt();
    if (this.is('for')) return this.forStmt();
    if (this.is('switch')) return this.switchStmt();
    if (this.is('{')) return this.block();
    if (this.accept('break')) return { t: 'Break' };
    if (this.accept('continue')) return { t: 'Continue' };
    if (this.accept('defer')) return { t: 'Defer', call: this.expr() };
    if (this.accept('go')) return { t: 'Go', call: this.expr() };
    if (this.tok.kind === 'ident' && this.peekIs(1, ':')) {
      const label = this.ident();
      this.expect(':');
      return { t: 'Labeled', label, stmt: this.stmt() };
    }
    return this.simpleStmt();
  }

  declStmt() {
    const keyword = this.next().value;
    const specs = [];
    const one = () => {
      if (keyword === 'type') {
        const name = this.ident();
        this.accept('=');
        specs.push({ t: 'TypeDecl', name, type: this.type() });
        return;
      }
      const names = [this.ident()];
      while (this.accept(',')) names.push(this.ident());
      let type;
      if (!this.is('=') && !this.is(';') && !this.is(')')) type = this.type();
      const values = this.accept('=') ? this.exprList() : [];
      specs.push({ t: keyword === 'var' ? 'VarDecl' : 'ConstDecl', names, type, values });
    };
    if (this.accept('(')) {
      this.skipSemicolons();
      while (!this.accept(')')) {
        one();
        this.skipSemicolons();
      }
    } else one();
    return { t: 'Decls', decls: specs };
  }

  simpleStmt(allowRange = false) {
    if (allowRange && this.accept('range')) return { t: 'Range', lhs: [], define: false, x: this.expr() };
    const lhs = this.exprList();
    if (this.tok.kind === 'op' && ASSIGN_OPS.has(this.tok.value)) {
      const op = this.next().value;
      if (allowRange && this.accept('range')) return { t: 'Range', lhs, define: op === ':=', x: this.expr() };
      return { t: 'Assign', lhs, op, rhs: this.exprList() };
    }
    if (this.accept('++')) return { t: 'IncDec', x: lhs[0], delta: 1 };
    if (this.accept('--')) return { t: 'IncDec', x: lhs[0], delta: -1 };
    if (lhs.length !== 1) this.fail('expected an assignment');
    return { t: 'Expr', x: lhs[0] };
  }

  withHeader(parse) {
    const saved = this.noCompositeLit;
    this.noCompositeLit = true;
    const result = parse();
    this.noCompositeLit = saved;
    return result;
  }

  ifStmt() {
    this.expect('if');
    const [init, cond] = this.withHeader(() => {
      let first = this.simpleStmt();
      if (this.accept(';')) return [first, this.expr()];
      return [undefined, first.x];
    });
    const then = this.block();
    let otherwise;
    if (this.accept('else')) otherwise = this.is('if') ? this.ifStmt() : this.block();
    return { t: 'If', init, cond, then, otherwise };
  }

  forStmt() {
    this.expect('for');
    if (this.is('{')) return { t: 'For', body: this.block() };
    const header = this.withHeader(() => {
      let init;
      if (!this.is(';')) init = this.simpleStmt(true);
      if (init?.t === 'Range') return { range: init };
      if (!this.is(';')) return { cond: init.x };
      this.expect(';');
      const cond = this.is(';') ? undefined : this.expr();
      this.expect(';');
      const post = this.is('{') ? undefined : this.simpleStmt();
      return { init, cond, post };
    });
    const body = this.block();
    if (header.range) return { ...header.range, t: 'Range', body };
    return { t: 'For', ...header, body };
  }

  switchStmt() {
    this.expect('switch');
    const tag = this.withHeader(() => (this.is('{') ? undefined : this.simpleStmt().x));
    this.expect('{');
    const clauses = [];
    this.skipSemicolons();
    while (!this.accept('}')) {
      const values = this.accept('default') ? undefined : (this.expect('case'), this.exprList());
      this.expect(':');
      clauses.push({ values, body: this.stmtList() });
    }
    return { t: 'Switch', tag, clauses };
  }

  // ---- expressions

  exprList() {
    const list = [this.expr()];
    while (this.accept(',')) list.push(this.expr());
    return list;
  }

  expr(minPrecedence = 1) {
    let left = this.unary();
    for (;;) {
      const precedence = this.tok.kind === 'op' ? BINARY_PRECEDENCE[this.tok.value] : undefined;
      if (precedence === undefined || precedence < minPrecedence) return left;
      const op = this.next().value;
      const right = this.expr(precedence + 1);
      left = { t: 'Binary', op, x: left, y: right, line: this.tok.line };
    }
  }

  unary() {
    if (this.tok.kind === 'op' && ['-', '+', '!', '^', '&', '<-'].includes(this.tok.value)) {
      const op = this.next().value;
      return { t: 'Unary', op, x: this.unary() };
    }
    if (this.accept('*')) return { t: 'Unary', op: '*', x: this.unary() };
    return this.primary();
  }

  primary() {
    let x = this.operand();
    for (;;) {
      const line = this.tok.line;
      if (this.accept('.')) {
        if (this.accept('(')) {
          const type = this.accept('type') ? { k: 'type-switch' } : this.type();
          this.expect(')');
          x = { t: 'TypeAssert', x, type };
        } else x = { t: 'Selector', x, name: this.ident(), line };
      } else if (this.is('(')) {
        x = this.call(x);
      } else if (this.accept('[')) {
        const saved = this.noCompositeLit;
        this.noCompositeLit = false;
        const low = this.is(':') ? undefined : this.expr();
        if (this.accept(':')) {
          const high = this.is(']') ? undefined : this.expr();
          x = { t: 'Slice', x, low, high };
        } else x = { t: 'Index', x, index: low };
        this.noCompositeLit = saved;
        this.expect(']');
      } else if (this.is('{') && this.canBeLiteralType(x)) {
        x = this.compositeLit(typeFromExpr(x));
      } else return x;
    }
  }

  canBeLiteralType(x) {
    if (x.t === 'TypeExpr') return true;
    if (this.noCompositeLit) return false;
    return x.t === 'Ident' || (x.t === 'Selector' && x.x.t === 'Ident');
  }

  call(fn) {
    const line = this.tok.line;
    this.expect('(');
    const saved = this.noCompositeLit;
    this.noCompositeLit = false;
    const args = [];
    let spread = false;
    this.skipSemicolons();
    while (!this.accept(')')) {
      args.push(this.expr());
      if (this.accept('...')) spread = true;
      if (!this.is(')')) this.expect(',');
      this.skipSemicolons();
    }
    this.noCompositeLit = saved;
    return { t: 'Call', fn, args, spread, line };
  }

  operand() {
    const token = this.tok;
    if (token.kind === 'string') return (this.next(), { t: 'Lit', value: token.value });
    if (token.kind === 'rune') return (this.next(), { t: 'Lit', value: token.value, rune: true });
    if (token.kind === 'number') return (this.next(), { t: 'Lit', value: parseNumber(token.value) });
    if (token.kind === 'ident') return (this.next(), { t: 'Ident', name: token.value, line: token.line });
    if (this.accept('(')) {
      const saved = this.noCompositeLit;
      this.noCompositeLit = false;
      const x = this.expr();
      this.noCompositeLit = saved;
      this.expect(')');
      return { t: 'Paren', x };
    }
    if (this.is('func')) {
      this.next();
      const params = this.params();
      const results = this.results();
      if (!this.is('{')) return { t: 'TypeExpr', type: { k: 'func' } };
      const saved = this.noCompositeLit;
      this.noCompositeLit = false;
      const body = this.block();
      this.noCompositeLit = saved;
      return { t: 'FuncLit', params, results, body };
    }
    if (this.is('[') || this.is('map') || this.is('struct') || this.is('chan') || this.is('interface')) {
      return { t: 'TypeExpr', type: this.type() };
    }
    return this.fail('expected an expression');
  }

  /** A composite literal `{ [key:] value, ... }`; an element may be a bare `{...}` of the element type. */
  compositeLit(type) {
    this.expect('{');
    const saved = this.noCompositeLit;
    this.noCompositeLit = false;
    const elements = [];
    this.skipSemicolons();
    while (!this.accept('}')) {
      let key;
      let value = this.element();
      if (this.accept(':')) {
        key = value;
        value = this.element();
      }
      elements.push({ key, value });
      if (!this.is('}')) this.expect(',');
      this.skipSemicolons();
    }
    this.noCompositeLit = saved;
    return { t: 'Composite', type, elements };
  }

  element() {
    if (this.is('{')) return this.compositeLit(undefined);
    return this.expr();
  }
}

function parseNumber(text) {
  const clean = text.replaceAll('_', '');
  if (/^0[0-7]+$/.test(clean)) return parseInt(clean, 8);
  if (/^0[oO]/.test(clean)) return parseInt(clean.slice(2), 8);
  if (/^0[bB]/.test(clean)) return parseInt(clean.slice(2), 2);
  return Number(clean);
}

/** The type an expression in front of `{` names. */
function typeFromExpr(x) {
  if (x.t === 'TypeExpr') return x.type;
  if (x.t === 'Ident') return { k: 'name', name: x.name };
  return { k: 'name', pkg: x.x.name, name: x.name };
}

/** The declarations of one Go file. */
export function parseGoFile(text, file) {
  return new Parser(text, file).file_();
}
