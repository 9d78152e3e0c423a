/**
 * Runs the Go subset that go-parser.mjs reads: enough of Go to play kustomize's api/krusty tests
 * against a recording harness (krusty-harness.mjs). Anything outside the subset, or any library call
 * the harness does not model, throws `Unsupported` naming it, and the test is left out with that
 * reason.
 */

export class Unsupported extends Error {}

/** A test that calls t.Skip: kustomize itself does not run it. */
export class Skipped extends Error {}

class ReturnSignal {
  constructor(values) {
    this.values = values;
  }
}
class BreakSignal {}
class ContinueSignal {}

/** Several results of one call (`m, err := f()`). */
export class Tuple {
  constructor(values) {
    this.values = values;
  }
}

/** A function written in Go. */
class GoFunc {
  constructor(decl, env, interp) {
    this.decl = decl;
    this.env = env;
    this.interp = interp;
  }
}

/** A function the harness provides: `fn(args, spread)`. */
export class Builtin {
  constructor(name, fn) {
    this.name = name;
    this.fn = fn;
  }
}

/** A Go struct value: its fields by name. Copied on assignment, as Go copies structs. */
class GoStruct {
  constructor(fields) {
    this.fields = fields;
  }

  copy() {
    return new GoStruct(new Map(this.fields));
  }
}

/** `&x` of a struct: shares the struct instead of copying it. */
export class Pointer {
  constructor(target) {
    this.target = target;
  }
}

/** A Go map. */
export class GoMap {
  constructor(entries = []) {
    this.map = new Map(entries);
  }
}

/** A Go package as the tests see it: its exported members by name. */
export class GoPackage {
  constructor(name, members) {
    this.name = name;
    this.members = members;
  }
}

class Env {
  constructor(parent) {
    this.parent = parent;
    this.vars = new Map();
  }

  lookup(name) {
    for (let env = this; env !== undefined; env = env.parent) {
      if (env.vars.has(name)) return env;
    }
    return undefined;
  }

  define(name, value) {
    if (name !== '_') this.vars.set(name, value);
  }
}

// prettier-ignore
const NUMERIC = new Set([
  'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'byte',
  'rune', 'float32', 'float64', 'uintptr',
]);

function copyValue(value) {
  return value instanceof GoStruct ? value.copy() : value;
}

export class Interpreter {
  /**
   * `decls` are the package's top-level declarations; `packages` the imported packages by name;
   * `selectMember(value, name)` answers `value.name` for the harness's own values.
   */
  constructor(decls, packages, selectMember) {
    this.packages = packages;
    this.selectMember = selectMember;
    this.global = new Env(undefined);
    this.types = new Map();
    this.lazy = new Map();
    for (const decl of decls) this.declareTop(decl);
  }

  declareTop(decl) {
    if (decl.t === 'Func') {
      if (decl.receiver === undefined) this.global.define(decl.name, new GoFunc(decl, this.global, this));
    } else if (decl.t === 'TypeDecl') this.types.set(decl.name, decl.type);
    else decl.names.forEach((name, i) => this.lazy.set(name, { decl, i }));
  }

  // ---- values and types

  resolveType(type, env) {
    for (let seen = 0; type?.k === 'name' && type.pkg === undefined && seen < 10; seen++) {
      const local = env?.lookup(`type ${type.name}`);
      const next = local ? local.vars.get(`type ${type.name}`) : this.types.get(type.name);
      if (next === undefined) return type;
      type = next;
    }
    return type;
  }

  zero(type, env) {
    const resolved = this.resolveType(type, env);
    if (resolved === undefined) return null;
    if (resolved.k === 'name' && resolved.pkg === undefined) {
      if (resolved.name === 'string') return '';
      if (resolved.name === 'bool') return false;
      if (NUMERIC.has(resolved.name)) return 0;
      return null;
    }
    if (resolved.k === 'struct') {
      return new GoStruct(new Map(resolved.fields.map((f) => [f.name, this.zero(f.type, env)])));
    }
    if (resolved.k === 'array') return [];
    return null;
  }

  // ---- calls

  call(fn, args, spread = false) {
    if (fn instanceof Builtin) return fn.fn(args, spread);
    if (!(fn instanceof GoFunc)) throw new Unsupported(`call of a ${describe(fn)}`);
    const { decl, env: closure } = fn;
    const env = new Env(closure);
    let i = 0;
    for (const param of decl.params) {
      for (const name of param.names) {
        if (param.variadic) env.define(name, spread ? args[i] : args.slice(i));
        else env.define(name, copyValue(args[i]));
        i++;
      }
    }
    const named = (decl.results ?? []).flatMap((r) => r.names.filter((n) => n !== '_').map((n) => [n, r]));
    for (const [name, result] of named) env.define(name, this.zero(result.type, env));
    try {
      this.execBlock(decl.body.stmts, env);
    } catch (signal) {
      if (!(signal instanceof ReturnSignal)) throw signal;
      if (signal.values.length === 0 && named.length > 0)
        return this.results(named.map(([n]) => env.vars.get(n)));
      return this.results(signal.values);
    }
    return named.length > 0 ? this.results(named.map(([n]) => env.vars.get(n))) : undefined;
  }

  results(values) {
    return values.length === 1 ? values[0] : new Tuple(values);
  }

  // ---- statements

  execBlock(stmts, env) {
    for (const stmt of stmts) this.exec(stmt, env);
  }

  exec(stmt, env) {
    switch (stmt.t) {
      case 'Block':
        return this.execBlock(stmt.stmts, new Env(env));
      case 'Expr':
        return void this.eval(stmt.x, env);
      case 'Decls':
        return this.execDecls(stmt.decls, env);
      case 'Assign':
        return this.execAssign(stmt, env);
      case 'IncDec':
        return this.assignTo(stmt.x, this.eval(stmt.x, env) + stmt.delta, env);
      case 'Return':
        throw new ReturnSignal(this.evalList(stmt.results, env));
      case 'If':
        return this.execIf(stmt, env);
      case 'For':
        return this.execFor(stmt, env);
      case 'Range':
        return this.execRange(stmt, env);
      case 'Switch':
        return this.execSwitch(stmt, env);
      case 'Break':
        throw new BreakSignal();
      case 'Continue':
        throw new ContinueSignal();
      // A deferred call only cleans up (th.Reset, closing a test server): it changes no expectation.
      case 'Defer':
        return undefined;
      default:
        throw new Unsupported(`the Go statement ${stmt.t}`);
    }
  }

  execDecls(decls, env) {
    for (const decl of decls) {
      if (decl.t === 'TypeDecl') env.define(`type ${decl.name}`, decl.type);
      else {
        const values = decl.values.length > 0 ? this.evalList(decl.values, env) : [];
        decl.names.forEach((name, i) =>
          env.define(name, values.length > 0 ? copyValue(values[i]) : this.zero(decl.type, env)),
        );
      }
    }
  }

  evalList(exprs, env) {
    const values = exprs.map((x) => this.eval(x, env));
    if (values.length === 1 && values[0] instanceof Tuple) return values[0].values;
    return values;
  }

  execAssign(stmt, env) {
    const { lhs, op } = stmt;
    const rhs = this.evalList(stmt.rhs, env);
    if (op === ':=') {
      lhs.forEach((x, i) => {
        if (x.t !== 'Ident') throw new Unsupported('`:=` to a non-identifier');
        const existing = env.vars.has(x.name);
        if (existing) env.vars.set(x.name, copyValue(rhs[i]));
        else env.define(x.name, copyValue(rhs[i]));
      });
      return;
    }
    if (op === '=') {
      lhs.forEach((x, i) => this.assignTo(x, copyValue(rhs[i]), env));
      return;
    }
    const binary = op.slice(0, -1);
    this.assignTo(lhs[0], this.binary(binary, this.eval(lhs[0], env), rhs[0]), env);
  }

  assignTo(x, value, env) {
    if (x.t === 'Ident') {
      if (x.name === '_') return;
      const scope = env.lookup(x.name);
      if (scope === undefined) throw new Unsupported(`assignment to an unknown variable ${x.name}`);
      scope.vars.set(x.name, value);
    } else if (x.t === 'Selector') {
      const target = deref(this.eval(x.x, env));
      if (target instanceof GoStruct) target.fields.set(x.name, value);
      else if (target !== null && typeof target === 'object' && !(target instanceof GoPackage)) {
        target[x.name] = value;
      } else throw new Unsupported(`assignment to the field ${x.name} of a ${describe(target)}`);
    } else if (x.t === 'Index') {
      const target = this.eval(x.x, env);
      const index = this.eval(x.index, env);
      if (target instanceof GoMap) target.map.set(index, value);
      else if (Array.isArray(target)) target[index] = value;
      else throw new Unsupported(`indexed assignment into a ${describe(target)}`);
    } else if (x.t === 'Unary' && x.op === '*') {
      throw new Unsupported('assignment through a pointer');
    } else throw new Unsupported(`assignment to a ${x.t}`);
  }

  execIf(stmt, env) {
    const scope = new Env(env);
    if (stmt.init) this.exec(stmt.init, scope);
    const cond = this.eval(stmt.cond, scope);
    if (typeof cond !== 'boolean') throw new Unsupported(`an if condition that is a ${describe(cond)}`);
    if (cond) this.execBlock(stmt.then.stmts, new Env(scope));
    else if (stmt.otherwise) this.exec(stmt.otherwise, scope);
  }

  loopBody(body, env) {
    try {
      this.execBlock(body.stmts, env);
    } catch (signal) {
      if (signal instanceof BreakSignal) return false;
      if (!(signal instanceof ContinueSignal)) throw signal;
    }
    return true;
  }

  execFor(stmt, env) {
    const scope = new Env(env);
    if (stmt.init) this.exec(stmt.init, scope);
    for (let guard = 0; ; guard++) {
      if (guard > 100_000) throw new Unsupported('a loop of more than 100,000 iterations');
      if (stmt.cond && !this.eval(stmt.cond, scope)) return;
      if (!this.loopBody(stmt.body, new Env(scope))) return;
      if (stmt.post) this.exec(stmt.post, scope);
    }
  }

  execRange(stmt, env) {
    const x = deref(this.eval(stmt.x, env));
    let pairs;
    if (Array.isArray(x)) pairs = x.map((v, i) => [i, v]);
    else if (x instanceof GoMap) pairs = [...x.map];
    else if (typeof x === 'number') pairs = Array.from({ length: x }, (_, i) => [i, i]);
    else if (x === null) pairs = [];
    else throw new Unsupported(`range over a ${describe(x)}`);
    for (const [key, value] of pairs) {
      const scope = new Env(env);
      const [k, v] = stmt.lhs;
      if (stmt.define) {
        if (k) scope.define(k.name, key);
        if (v) scope.define(v.name, copyValue(value));
      } else {
        if (k) this.assignTo(k, key, env);
        if (v) this.assignTo(v, copyValue(value), env);
      }
      if (!this.loopBody(stmt.body, scope)) return;
    }
  }

  execSwitch(stmt, env) {
    const tag = stmt.tag === undefined ? true : this.eval(stmt.tag, env);
    const chosen =
      stmt.clauses.find((c) => c.values?.some((v) => equal(this.eval(v, env), tag))) ??
      stmt.clauses.find((c) => c.values === undefined);
    if (chosen === undefined) return;
    try {
      this.execBlock(chosen.body, new Env(env));
    } catch (signal) {
      if (!(signal instanceof BreakSignal)) throw signal;
    }
  }

  // ---- expressions

  eval(x, env) {
    switch (x.t) {
      case 'Lit':
        return x.value;
      case 'Ident':
        return this.evalIdent(x, env);
      case 'Paren':
        return this.eval(x.x, env);
      case 'Binary':
        return this.evalBinary(x, env);
      case 'Unary':
        return this.evalUnary(x, env);
      case 'Selector':
        return this.evalSelector(x, env);
      case 'Call':
        return this.evalCall(x, env);
      case 'Index':
        return this.evalIndex(x, env);
      case 'Slice': {
        const value = this.eval(x.x, env);
        const low = x.low ? this.eval(x.low, env) : 0;
        const high = x.high ? this.eval(x.high, env) : value.length;
        return value.slice(low, high);
      }
      case 'Composite':
        return this.composite(x.type, x.elements, env);
      case 'FuncLit':
        return new GoFunc(x, env, this);
      case 'TypeExpr':
        return { goType: x.type };
      default:
        throw new Unsupported(`the Go expression ${x.t}`);
    }
  }

  evalIdent(x, env) {
    const scope = env.lookup(x.name);
    if (scope) return scope.vars.get(x.name);
    if (this.lazy.has(x.name)) return this.evalPackageVar(x.name);
    if (x.name === 'nil') return null;
    if (x.name === 'true') return true;
    if (x.name === 'false') return false;
    if (this.packages.has(x.name)) return this.packages.get(x.name);
    if (
      this.types.has(x.name) ||
      env.lookup(`type ${x.name}`) ||
      NUMERIC.has(x.name) ||
      x.name === 'string'
    ) {
      return { goType: { k: 'name', name: x.name } };
    }
    const builtin = this.builtins()[x.name];
    if (builtin) return new Builtin(x.name, builtin);
    throw new Unsupported(`the identifier ${x.name}`);
  }

  evalPackageVar(name) {
    const { decl, i } = this.lazy.get(name);
    this.lazy.delete(name);
    const values = decl.values.length > 0 ? this.evalList(decl.values, this.global) : [];
    decl.names.forEach((n, j) => {
      this.lazy.delete(n);
      this.global.define(n, values.length > 0 ? values[j] : this.zero(decl.type, this.global));
    });
    return this.global.vars.get(decl.names[i]);
  }

  builtins() {
    return {
      len: ([v]) => (v instanceof GoMap ? v.map.size : v === null ? 0 : v.length),
      append: (args, spread) => {
        const [base, ...rest] = args;
        const items = spread ? [...rest[0]] : rest;
        return [...(base ?? []), ...(typeof items === 'string' ? [...items] : items)];
      },
      make: ([type]) => (type.goType.k === 'map' ? new GoMap() : []),
      panic: ([v]) => {
        throw new Unsupported(`panic(${String(v)})`);
      },
    };
  }

  evalBinary(x, env) {
    if (x.op === '&&') return this.eval(x.x, env) && this.eval(x.y, env);
    if (x.op === '||') return this.eval(x.x, env) || this.eval(x.y, env);
    return this.binary(x.op, this.eval(x.x, env), this.eval(x.y, env));
  }

  binary(op, a, b) {
    const special = this.compareSymbolic?.(op, a, b);
    if (special !== undefined) return special;
    switch (op) {
      case '+':
        if (typeof a !== typeof b || (typeof a !== 'string' && typeof a !== 'number')) {
          throw new Unsupported(`+ of a ${describe(a)} and a ${describe(b)}`);
        }
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return Math.trunc(a / b);
      case '%':
        return a % b;
      case '==':
        return equal(a, b);
      case '!=':
        return !equal(a, b);
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
      default:
        throw new Unsupported(`the operator ${op}`);
    }
  }

  evalUnary(x, env) {
    if (x.op === '&') {
      const value = this.eval(x.x, env);
      return value instanceof GoStruct ? new Pointer(value) : value;
    }
    const value = this.eval(x.x, env);
    if (x.op === '!') {
      if (typeof value !== 'boolean') throw new Unsupported(`! of a ${describe(value)}`);
      return !value;
    }
    if (x.op === '-') return -value;
    if (x.op === '*') return deref(value);
    throw new Unsupported(`the unary operator ${x.op}`);
  }

  evalSelector(x, env) {
    const target = deref(this.eval(x.x, env));
    if (target instanceof GoStruct) {
      if (!target.fields.has(x.name)) throw new Unsupported(`the field or method ${x.name} of a struct`);
      return target.fields.get(x.name);
    }
    if (target instanceof GoPackage) {
      if (!(x.name in target.members)) throw new Unsupported(`${target.name}.${x.name}`);
      return target.members[x.name];
    }
    return this.selectMember(target, x.name);
  }

  evalCall(x, env) {
    const fn = this.eval(x.fn, env);
    if (fn !== null && typeof fn === 'object' && 'goType' in fn) return this.convert(fn.goType, x.args, env);
    const args = x.args.length === 1 ? this.evalList(x.args, env) : x.args.map((a) => this.eval(a, env));
    return this.call(fn, args, x.spread);
  }

  convert(type, args, env) {
    const value = this.eval(args[0], env);
    const resolved = this.resolveType(type, env);
    if (resolved.k === 'name' && resolved.name === 'string') {
      if (Array.isArray(value)) return bytesToString(value);
      if (typeof value === 'number') return String.fromCodePoint(value);
      return value;
    }
    if (resolved.k === 'slice') {
      // `[]byte(s)` keeps the text: files are written as text.
      return value;
    }
    return value;
  }

  evalIndex(x, env) {
    const target = deref(this.eval(x.x, env));
    const index = this.eval(x.index, env);
    if (target instanceof GoMap) return target.map.has(index) ? target.map.get(index) : null;
    if (Array.isArray(target) || typeof target === 'string') {
      if (index >= target.length) throw new Unsupported('an index out of range');
      return typeof target === 'string' ? target.charCodeAt(index) : target[index];
    }
    throw new Unsupported(`indexing a ${describe(target)}`);
  }

  composite(type, elements, env) {
    const resolved = this.resolveType(type, env);
    if (resolved === undefined) throw new Unsupported('a composite literal of unknown type');
    if (resolved.k === 'ptr') return new Pointer(this.composite(resolved.elem, elements, env));
    const element = (value, elemType) =>
      value.t === 'Composite' && value.type === undefined
        ? this.composite(elemType, value.elements, env)
        : this.eval(value, env);
    if (resolved.k === 'slice' || resolved.k === 'array') {
      return elements.map((e) => element(e.value, resolved.elem));
    }
    if (resolved.k === 'map') {
      return new GoMap(elements.map((e) => [element(e.key, resolved.key), element(e.value, resolved.elem)]));
    }
    if (resolved.k === 'struct' || resolved.k === 'name') {
      const struct = resolved.k === 'struct' ? this.zero(resolved, env) : new GoStruct(new Map());
      const fieldTypes = new Map((resolved.fields ?? []).map((f) => [f.name, f.type]));
      elements.forEach((e, i) => {
        const name = e.key ? e.key.name : resolved.fields?.[i]?.name;
        if (name === undefined) throw new Unsupported('a positional literal of a library struct');
        struct.fields.set(name, element(e.value, fieldTypes.get(name)));
      });
      return resolved.k === 'name' ? this.libraryStruct(resolved, struct) : struct;
    }
    throw new Unsupported(`a composite literal of a ${resolved.k}`);
  }

  /** A literal of a library's struct type (`types.Options{...}`): kept as a struct of what was set. */
  libraryStruct(type, struct) {
    return struct;
  }
}

export function deref(value) {
  return value instanceof Pointer ? value.target : value;
}

function equal(a, b) {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  return a === b;
}

/** Bytes to text, as `string(b)` in Go; bytes that are not UTF-8 stay a Buffer, to be written as they are. */
function bytesToString(bytes) {
  const buffer = Buffer.from(bytes);
  const text = buffer.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buffer) ? text : buffer;
}

export function describe(value) {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (typeof value !== 'object') return typeof value;
  return value.constructor?.name ?? 'object';
}
