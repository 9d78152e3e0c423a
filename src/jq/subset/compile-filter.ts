import type { JsonValue } from '../../core/json.ts';
import { evaluate } from './evaluate-filter.ts';
import { isBuiltin } from './jq-builtins.ts';
import { Defer, JqError } from './jq-values.ts';
import { parseFilter, type Node } from './parse-filter.ts';

/**
 * A filter of the subset, compiled once (docs/hooks.md "jq"): every output, or `undefined` when jq
 * must answer — it reports an error (for its message) or the value is one the subset does not
 * reproduce exactly.
 */
export type CompiledFilter = (input: JsonValue) => JsonValue[] | undefined;

/** Filters remembered, compiled or known to be outside the subset; emptied when full. */
const CACHE_SIZE = 2000;
const cache = new Map<string, CompiledFilter | null>();

/** The compiled filter, or undefined when it is outside the subset. */
export function compileFilter(filter: string): CompiledFilter | undefined {
  let compiled = cache.get(filter);
  if (compiled === undefined) {
    const node = parseFilter(filter);
    compiled = node && usesOnlyBuiltins(node) ? run(node) : null;
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(filter, compiled);
  }
  return compiled ?? undefined;
}

function run(node: Node): CompiledFilter {
  return (input) => {
    try {
      return evaluate(node, input);
    } catch (error: unknown) {
      if (error instanceof Defer || error instanceof JqError) return undefined;
      // A stack too deep for an input nested that deep is jq's to judge too.
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  };
}

function usesOnlyBuiltins(node: Node): boolean {
  switch (node.type) {
    case 'identity':
    case 'literal':
      return true;
    case 'call':
      return isBuiltin(node.name, node.args.length) && node.args.every(usesOnlyBuiltins);
    case 'field':
    case 'iterate':
      return usesOnlyBuiltins(node.target);
    case 'index':
      return usesOnlyBuiltins(node.target) && usesOnlyBuiltins(node.index);
    case 'negate':
      return usesOnlyBuiltins(node.operand);
    case 'try':
      return usesOnlyBuiltins(node.body);
    case 'array':
      return node.body === undefined || usesOnlyBuiltins(node.body);
    case 'object':
      return node.entries.every(([key, value]) => usesOnlyBuiltins(key) && usesOnlyBuiltins(value));
    case 'string':
      return node.parts.every((part) => typeof part === 'string' || usesOnlyBuiltins(part));
    case 'if':
      return (
        node.branches.every(([condition, then]) => usesOnlyBuiltins(condition) && usesOnlyBuiltins(then)) &&
        usesOnlyBuiltins(node.otherwise)
      );
    default:
      return usesOnlyBuiltins(node.left) && usesOnlyBuiltins(node.right);
  }
}
