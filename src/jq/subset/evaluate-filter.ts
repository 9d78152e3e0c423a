import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import { callBuiltin, setKey } from './jq-builtins.ts';
import { addValues, compareValues, Defer, equalValues, isTruthy, JqError, toJsonText } from './jq-values.ts';
import type { BinaryOp, Node } from './parse-filter.ts';

/**
 * Every output of `node` on `input`, in jq's order (docs/hooks.md "jq"). Throws JqError where jq
 * reports an error and Defer where the subset does not reproduce jq exactly.
 */
export function evaluate(node: Node, input: JsonValue): JsonValue[] {
  switch (node.type) {
    case 'identity':
      return [input];
    case 'literal':
      return [node.value];
    // `.a?`, `.[i]?`, `.[]?`: only that step's error is dropped, not one of the path before it.
    case 'field':
      return evaluate(node.target, input).flatMap((target) =>
        guarded(node.optional, () => [fieldOf(target, node.name)]),
      );
    case 'index':
      return evaluate(node.target, input).flatMap((target) =>
        evaluate(node.index, input).flatMap((index) =>
          guarded(node.optional, () => [indexOf(target, index)]),
        ),
      );
    case 'iterate':
      return evaluate(node.target, input).flatMap((target) => guarded(node.optional, () => iterate(target)));
    case 'pipe':
      return evaluate(node.left, input).flatMap((value) => evaluate(node.right, value));
    case 'comma':
      return [...evaluate(node.left, input), ...evaluate(node.right, input)];
    case 'binary':
      return cartesian(node.left, node.right, input, (a, b) => binary(node.op, a, b));
    case 'and':
    case 'or':
      return logical(node.type, node.left, node.right, input);
    case 'alternative':
      return alternative(node.left, node.right, input);
    case 'negate':
      return evaluate(node.operand, input).map((value) => {
        if (typeof value !== 'number') throw new JqError();
        return value === 0 ? 0 : -value;
      });
    case 'array':
      return [node.body === undefined ? [] : evaluate(node.body, input)];
    case 'object':
      return [construct(node.entries, input)];
    case 'string':
      return [interpolate(node.parts, input)];
    case 'if':
      return conditional(node.branches, node.otherwise, input);
    case 'try':
      return tryBody(node.body, input);
    case 'call':
      return callBuiltin(node.name, node.args, input, evaluate);
  }
}

/**
 * `try f` and `(f)?`. An error raised while `[…]` or a builtin collects outputs does not simply
 * vanish in jq (`[select(error)]?` gives `[]`): such a body is left to jq when it fails.
 */
function tryBody(body: Node, input: JsonValue): JsonValue[] {
  try {
    return evaluate(body, input);
  } catch (error: unknown) {
    if (!(error instanceof JqError)) throw error;
    if (collects(body)) throw new Defer();
    return [];
  }
}

function collects(node: Node): boolean {
  switch (node.type) {
    case 'array':
      return true;
    case 'call':
      return node.args.length > 0;
    case 'identity':
    case 'literal':
      return false;
    case 'field':
    case 'iterate':
      return collects(node.target);
    case 'index':
      return collects(node.target) || collects(node.index);
    case 'negate':
      return collects(node.operand);
    case 'try':
      return collects(node.body);
    case 'object':
      return node.entries.some(([key, value]) => collects(key) || collects(value));
    case 'string':
      return node.parts.some((part) => typeof part !== 'string' && collects(part));
    case 'if':
      return node.branches.some(([a, b]) => collects(a) || collects(b)) || collects(node.otherwise);
    default:
      return collects(node.left) || collects(node.right);
  }
}

/** `?`: jq's errors become no output; a Defer passes. */
function guarded(optional: boolean, run: () => JsonValue[]): JsonValue[] {
  if (!optional) return run();
  try {
    return run();
  } catch (error: unknown) {
    if (error instanceof JqError) return [];
    throw error;
  }
}

function fieldOf(target: JsonValue, name: string): JsonValue {
  if (target === null) return null;
  if (!isJsonObject(target)) throw new JqError();
  return Object.hasOwn(target, name) ? (target[name] ?? null) : null;
}

function indexOf(target: JsonValue, index: JsonValue): JsonValue {
  if (typeof index === 'string') return fieldOf(target, index);
  if (typeof index !== 'number') throw new Defer();
  if (target === null) return null;
  if (!Array.isArray(target)) throw new JqError();
  if (!Number.isInteger(index)) throw new Defer();
  const at = index < 0 ? target.length + index : index;
  return at >= 0 && at < target.length ? (target[at] ?? null) : null;
}

function iterate(target: JsonValue): JsonValue[] {
  if (Array.isArray(target)) return target;
  if (isJsonObject(target)) return Object.values(target);
  throw new JqError();
}

/** jq evaluates the right operand in the outer loop: `(1,2) + (10,20)` is 11, 12, 21, 22. */
function cartesian(
  left: Node,
  right: Node,
  input: JsonValue,
  combine: (a: JsonValue, b: JsonValue) => JsonValue,
): JsonValue[] {
  const rights = evaluate(right, input);
  const lefts = evaluate(left, input);
  return rights.flatMap((b) => lefts.map((a) => combine(a, b)));
}

function binary(op: BinaryOp, a: JsonValue, b: JsonValue): JsonValue {
  switch (op) {
    case '==':
      return equalValues(a, b);
    case '!=':
      return !equalValues(a, b);
    case '<':
      return compareValues(a, b) < 0;
    case '<=':
      return compareValues(a, b) <= 0;
    case '>':
      return compareValues(a, b) > 0;
    case '>=':
      return compareValues(a, b) >= 0;
    case '+':
      return addValues(a, b);
    case '-':
      return subtract(a, b);
    default:
      return arithmetic(op, a, b);
  }
}

function subtract(a: JsonValue, b: JsonValue): JsonValue {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (Array.isArray(a) && Array.isArray(b))
    return a.filter((item) => !b.some((other) => equalValues(item, other)));
  throw new JqError();
}

/** `*`, `/`, `%` of two numbers; strings, objects and zero divisors are left to jq. */
function arithmetic(op: '*' | '/' | '%', a: JsonValue, b: JsonValue): JsonValue {
  if (typeof a !== 'number' || typeof b !== 'number') throw new Defer();
  if (op === '*') return a * b;
  if (b === 0) throw new Defer();
  if (op === '/') return a / b;
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || a < 0 || b < 0) throw new Defer();
  return a % b;
}

function logical(type: 'and' | 'or', left: Node, right: Node, input: JsonValue): JsonValue[] {
  return evaluate(left, input).flatMap((a) => {
    if (type === 'and' && !isTruthy(a)) return [false];
    if (type === 'or' && isTruthy(a)) return [true];
    return evaluate(right, input).map(isTruthy);
  });
}

/** `a // b`: a's outputs that are neither false nor null, else b's; an error of a is not dropped (jq 1.8). */
function alternative(left: Node, right: Node, input: JsonValue): JsonValue[] {
  const outputs = evaluate(left, input).filter(isTruthy);
  return outputs.length > 0 ? outputs : evaluate(right, input);
}

/** `{…}` with one output per key and value; several (a cartesian product) are left to jq. */
function construct(entries: readonly (readonly [Node, Node])[], input: JsonValue): JsonObject {
  const object: JsonObject = {};
  for (const [keyNode, valueNode] of entries) {
    const key = single(evaluate(keyNode, input));
    if (typeof key !== 'string') throw new JqError();
    setKey(object, key, single(evaluate(valueNode, input)));
  }
  return object;
}

function interpolate(parts: readonly (string | Node)[], input: JsonValue): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const value = single(evaluate(part, input));
      return typeof value === 'string' ? value : toJsonText(value);
    })
    .join('');
}

function conditional(
  branches: readonly (readonly [Node, Node])[],
  otherwise: Node,
  input: JsonValue,
): JsonValue[] {
  const [first, ...rest] = branches;
  if (!first) return evaluate(otherwise, input);
  return evaluate(first[0], input).flatMap((condition) =>
    isTruthy(condition) ? evaluate(first[1], input) : conditional(rest, otherwise, input),
  );
}

/** The one output of an expression where the subset handles only one. */
function single(outputs: readonly JsonValue[]): JsonValue {
  if (outputs.length !== 1) throw new Defer();
  return outputs[0] ?? null;
}
