import { KaddonError } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';
import { JqBudgetExceeded, JqWorker } from './jq-worker.ts';
import { compileFilter } from './subset/compile-filter.ts';

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
 * A jq engine: filters of the subset hooks use in practice are compiled once and evaluated here
 * (src/jq/subset/, docs/hooks.md "jq"); anything else, and every evaluation that ends in a
 * jq error (for jq's own message), goes to jq-wasm in a worker thread (see JqWorker), which is
 * replaced when a filter overruns its budget.
 */
export function loadJqEngine(options: JqEngineOptions = {}): Promise<JqEngine> {
  const budgetMs = options.timeoutMs ?? DEFAULT_JQ_TIMEOUT_MS;
  const worker = new JqWorker();
  return Promise.resolve({
    evaluate(filter, input, where) {
      const outputs = compileFilter(filter)?.(input);
      if (outputs !== undefined) return outputs;
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

/** A `when` condition holds when the expression yields anything but false or null (docs/architecture.md). */
export function isConditionTrue(outputs: readonly JsonValue[]): boolean {
  return outputs.some((value) => value !== false && value !== null);
}
