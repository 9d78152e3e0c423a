import { hookCommand } from './run-hook-command.ts';
import type { HookRunDeps } from './run-hook-deps.ts';
import { describeFailure, HookError } from './run-hook-error.ts';
import { runProcess } from './run-hook-process.ts';

/** A `<hook> --config` run (docs/hooks.md: stdout is the binding configuration). */
export interface HookConfigRequest {
  readonly name: string;
  readonly path: string;
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly pythonVenv?: string;
}

/**
 * Runs `<hook> --config` with the same isolation as a hook run and returns its stdout; stderr is
 * logged. Unlike a hook run this throws: a hook without a configuration cannot be registered.
 */
export async function runHookConfig(request: HookConfigRequest, deps: HookRunDeps): Promise<string> {
  const logger = deps.logger.child({ hook: request.name });
  const spec = hookCommand(request, ['--config'], { ...deps.baseEnv, ...request.extraEnv }, deps.cwd);
  const outcome = await runProcess(
    spec,
    { limits: { ...deps.limits, timeoutMs: request.timeoutMs }, logger, captureStdout: true },
    deps,
  );
  const subject = { kind: 'hook', name: request.name } as const;
  const failure = describeFailure(outcome);
  if (failure) {
    throw new HookError('hook-config-failed', subject, `--config ${failure.problem}`, failure.hint, {
      cause: failure.cause,
      stderrTail: outcome.stderrTail,
    });
  }
  if (outcome.stdout?.overflowed) {
    throw new HookError(
      'hook-config-failed',
      subject,
      `--config printed more than ${String(deps.limits.maxCapturedBytes)} bytes`,
      'Print only the binding configuration to stdout; log to stderr.',
    );
  }
  return outcome.stdout?.text ?? '';
}
