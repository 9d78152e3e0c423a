import { loadJq, type Jq } from 'jq-wasm';
import { KaddonError } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';

/** A jq expression that does not compile or fails on its input. */
export class JqExpressionError extends KaddonError {
  readonly code = 'jq-invalid';
  constructor(where: string, expression: string, problem: string, options?: { cause?: unknown }) {
    super(
      `${where}: jq expression '${expression}' failed: ${problem}.`,
      'Correct the expression (jq 1.8 syntax).',
      options,
    );
  }
}

/**
 * Evaluates jq filters synchronously once loaded (jq-wasm, pinned in package.json; docs/architecture.md
 * "Dependencies").
 */
export interface JqEngine {
  /** Every output of `filter` run on `input`. `where` names the file in errors. */
  evaluate(filter: string, input: JsonValue, where: string): JsonValue[];
}

let loading: Promise<Jq> | undefined;

/** Loads the jq engine once per process; later calls share it. */
export async function loadJqEngine(): Promise<JqEngine> {
  loading ??= loadJq();
  const jq = await loading;
  return {
    evaluate(filter, input, where) {
      const fast = evaluateSimplePath(filter, input);
      if (fast !== undefined) return [fast];
      try {
        return jq.json<JsonValue>(input, filter);
      } catch (error: unknown) {
        const detail =
          error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
        throw new JqExpressionError(where, filter, detail, { cause: error });
      }
    },
  };
}

const SIMPLE_PATH = /^\s*((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)\s*$/;

/**
 * `.a.b.c` without jq: each wasm call costs about 2 ms whatever the filter (docs/architecture.md
 * "Dependencies"), and most conditions and jqFilters are plain paths. Undefined where jq itself must decide
 * (anything but a plain path, or a path through a list or a scalar, which jq reports as an error).
 */
function evaluateSimplePath(filter: string, input: JsonValue): JsonValue | undefined {
  const match = SIMPLE_PATH.exec(filter);
  const path = match?.[1];
  if (path === undefined) return undefined;
  let node: JsonValue = input;
  for (const key of path.split('.').slice(1)) {
    if (key === '') continue;
    if (node === null) return null;
    if (typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = node[key] ?? null;
  }
  return node;
}

/** A `when` condition holds when the expression yields anything but false or null (docs/architecture.md). */
export function isConditionTrue(outputs: readonly JsonValue[]): boolean {
  return outputs.some((value) => value !== false && value !== null);
}
