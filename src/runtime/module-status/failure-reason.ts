import { errorMessage, KaddonError } from '../../core/errors.ts';
import { HookError } from '../../hooks/run/run-hook-error.ts';

/** The Ready reasons a failed ModuleRun can have (docs/module-status.md "Conditions"). */
export type FailureReason = 'HookFailed' | 'ValuesInvalid' | 'RenderFailed' | 'HelmFailed';

export interface ModuleFailure {
  readonly reason: FailureReason;
  /** The error as the log prints it, with a hook's last stderr lines. */
  readonly message: string;
}

const REASON_BY_CODE: Readonly<Record<string, FailureReason>> = {
  'hook-run-failed': 'HookFailed',
  'hook-run-incomplete': 'HookFailed',
  'snapshots-invalid': 'HookFailed',
  'object-patch-invalid': 'HookFailed',
  'object-patch-failed': 'HookFailed',
  'values-validation-failed': 'ValuesInvalid',
  'values-schema-invalid': 'ValuesInvalid',
  'values-invalid': 'ValuesInvalid',
  'patch-failed': 'ValuesInvalid',
  'helm-failed': 'HelmFailed',
  'crd-invalid': 'HelmFailed',
  'chart-render-failed': 'RenderFailed',
};

/** Longest message kept on the Module object: enough for an error and its stderr tail. */
const MAX_MESSAGE = 2000;

/** Why a ModuleRun failed, from the first error of its cause chain that says. */
export function classifyFailure(error: unknown): ModuleFailure {
  let reason: FailureReason = 'RenderFailed';
  let stderrTail = '';
  for (let cause: unknown = error, depth = 0; cause !== undefined && depth < 8; depth++) {
    if (cause instanceof HookError) {
      reason = 'HookFailed';
      stderrTail = cause.stderrTail;
      break;
    }
    if (cause instanceof KaddonError && REASON_BY_CODE[cause.code] !== undefined) {
      reason = REASON_BY_CODE[cause.code] ?? reason;
      if (reason !== 'HookFailed') break;
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  const text = error instanceof KaddonError ? error.describe() : errorMessage(error);
  const withStderr = stderrTail && !text.includes(stderrTail) ? `${text}\nstderr:\n${stderrTail}` : text;
  return { reason, message: truncate(withStderr) };
}

function truncate(text: string): string {
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}
