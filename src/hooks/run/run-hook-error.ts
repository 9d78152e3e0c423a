import { KaddonError } from '../../core/errors.ts';
import type { ProcessOutcome } from './run-hook-process.ts';

export type HookErrorCode =
  | 'hook-failed'
  | 'hook-timeout'
  | 'hook-killed'
  | 'hook-not-started'
  | 'hook-output-invalid'
  | 'hook-config-failed'
  | 'enabled-script-failed'
  | 'enabled-script-invalid-result';

/**
 * A hook, `--config` run or `enabled` script that did not do its job. Runs return it as a value
 * (`HookRunResult.error`); the caller decides whether to retry, allow the failure or stop.
 */
export class HookError extends KaddonError {
  readonly code: HookErrorCode;
  /** The hook's name (its path relative to the hooks directory) or the script's path. */
  readonly hook: string;
  /** The last lines the process wrote to stderr, if any. */
  readonly stderrTail: string;

  constructor(
    code: HookErrorCode,
    subject: { kind: 'hook' | 'enabled script'; name: string },
    problem: string,
    hint: string,
    options?: { cause?: unknown; stderrTail?: string },
  ) {
    super(`${subject.kind} '${subject.name}': ${problem}.`, hint, options);
    this.code = code;
    this.hook = subject.name;
    this.stderrTail = options?.stderrTail ?? '';
  }
}

/** The last stderr line, quoted for a message, or nothing. */
function lastLineOf(stderrTail: string): string {
  const last = stderrTail.split('\n').at(-1) ?? '';
  if (last === '') return '';
  return `: ${last.length > 200 ? `${last.slice(0, 200)}…` : last}`;
}

/** What went wrong with a process, if anything, in words for HookError. */
export interface ProcessFailure {
  readonly code: 'hook-failed' | 'hook-timeout' | 'hook-killed' | 'hook-not-started';
  readonly problem: string;
  readonly hint: string;
  readonly cause: Error | undefined;
}

export function describeFailure(outcome: ProcessOutcome): ProcessFailure | undefined {
  const stderr = lastLineOf(outcome.stderrTail);
  if (outcome.spawnError) {
    return {
      code: 'hook-not-started',
      problem: `could not be started: ${outcome.spawnError.message}`,
      hint: 'Check that the file exists, is executable and starts with a valid #! line.',
      cause: outcome.spawnError,
    };
  }
  if (outcome.timedOut) {
    return {
      code: 'hook-timeout',
      problem: 'did not finish in time and was stopped with its child processes',
      hint: 'Find out where it hangs (its output is in the log) or raise the timeout.',
      cause: undefined,
    };
  }
  if (outcome.signal !== undefined) {
    return {
      code: 'hook-killed',
      problem: `was killed by ${outcome.signal}${stderr}`,
      hint: 'A SIGKILL nobody sent is usually the out-of-memory killer: check the memory limit.',
      cause: undefined,
    };
  }
  if (outcome.exitCode !== 0) {
    return {
      code: 'hook-failed',
      problem: `exited with code ${String(outcome.exitCode)}${stderr}`,
      hint: 'See what it wrote to stderr in the log.',
      cause: undefined,
    };
  }
  return undefined;
}
