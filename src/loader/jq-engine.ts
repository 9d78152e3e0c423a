import { KaddonError } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';
import { JqBudgetExceeded, JqWorker } from './jq-worker.ts';

/** A jq expression that does not compile or fails on its input. */
export class JqExpressionError extends KaddonError {
  readonly code = 'jq-invalid';
  constructor(
    where: string,
    expression: string,
    problem: string,
    options?: { cause?: unknown; hint?: string },
  ) {
    super(
      `${where}: jq expression '${expression}' failed: ${problem}.`,
      options?.hint ?? 'Correct the expression (jq 1.8 syntax).',
      options,
    );
  }
}

/**
 * Evaluates jq filters synchronously once loaded (jq-wasm, pinned in package.json; docs/architecture.md
 * "Dependencies"), each within a time budget: input decides the filter, and a filter may not run for
 * ever.
 */
export interface JqEngine {
  /** Every output of `filter` run on `input`. `where` names the file in errors. */
  evaluate(filter: string, input: JsonValue, where: string): JsonValue[];
}

/** How long one jq evaluation may take unless KADDON_JQ_TIMEOUT says otherwise. */
export const DEFAULT_JQ_TIMEOUT_MS = 10_000;

export interface JqEngineOptions {
  /** The budget of one evaluation, in milliseconds. */
  readonly timeoutMs?: number;
}

/**
 * A jq engine whose evaluations run in a worker thread (see JqWorker): plain paths are answered here,
 * anything else by jq-wasm in the worker, which is replaced when a filter overruns its budget.
 */
export function loadJqEngine(options: JqEngineOptions = {}): Promise<JqEngine> {
  const budgetMs = options.timeoutMs ?? DEFAULT_JQ_TIMEOUT_MS;
  const worker = new JqWorker();
  return Promise.resolve({
    evaluate(filter, input, where) {
      const fast = evaluateSimplePath(filter, input);
      if (fast !== undefined) return [fast];
      try {
        return worker.evaluate(filter, input, budgetMs);
      } catch (error: unknown) {
        if (error instanceof JqBudgetExceeded)
          throw new JqExpressionError(where, filter, error.message, {
            cause: error,
            hint: `Make the expression finish: each jq evaluation gets ${String(budgetMs / 1000)} s (KADDON_JQ_TIMEOUT).`,
          });
        const detail =
          error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
        throw new JqExpressionError(where, filter, detail, { cause: error });
      }
    },
  });
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
