import { errorMessage } from '../../core/errors.ts';
import { stat } from 'node:fs/promises';
import type { HookRunDeps } from './run-hook-deps.ts';
import { describeFailure, HookError } from './run-hook-error.ts';
import { withHookTempDir, type HookTempDir } from './run-hook-files.ts';
import { runProcess } from './run-hook-process.ts';

/**
 * A module's `enabled` script run (docs/lifecycle.md step 4, docs/values.md "Values in hooks, enabled scripts
 * and charts").
 */
export interface EnabledScriptRequest {
  readonly moduleName: string;
  /** `<module dir>/enabled`; it need not exist. */
  readonly path: string;
  /**
   * Written to $VALUES_PATH as given: global and module values with `global.enabledModules`, the modules
   * enabled before this one.
   */
  readonly valuesJson: string;
  /** Written to $CONFIG_VALUES_PATH as given. */
  readonly configValuesJson: string;
  readonly timeoutMs?: number;
}

/**
 * - `absent`: no script, the module stays enabled (docs/lifecycle.md step 4);
 * - `not-executable`: the module stays enabled and a warning is logged (addon-operator's ScriptEnabled);
 * - `script`: the script ran and wrote true or false;
 * - `failed`: the script could not be run, failed, or wrote something else; `enabled` is false.
 */
type EnabledScriptOutcome = 'absent' | 'not-executable' | 'script' | 'failed';

export interface EnabledScriptResult {
  readonly outcome: EnabledScriptOutcome;
  readonly enabled: boolean;
  /** What the script wrote to $MODULE_ENABLED_REASON, trimmed; undefined when nothing. */
  readonly reason: string | undefined;
  readonly error: HookError | undefined;
}

/** Runs a module's `enabled` script, if it has one, and returns its verdict as a value. */
export async function runEnabledScript(
  request: EnabledScriptRequest,
  deps: HookRunDeps,
): Promise<EnabledScriptResult> {
  const logger = deps.logger.child({ module: request.moduleName, script: request.path });
  let mode: number;
  try {
    mode = (await stat(request.path)).mode;
  } catch (error: unknown) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      return { outcome: 'absent', enabled: true, reason: undefined, error: undefined };
    }
    const detail = errorMessage(error);
    return failed(request.path, `cannot be read: ${detail}`, 'Check the file and its permissions.', error);
  }
  if ((mode & 0o111) === 0) {
    logger.info('enabled script is not executable: the module stays enabled (warning)');
    return { outcome: 'not-executable', enabled: true, reason: undefined, error: undefined };
  }
  return withHookTempDir(deps.tmpRoot, deps.keepTempFiles, (dir) =>
    runScript(request, dir, { ...deps, logger }),
  );
}

async function runScript(
  request: EnabledScriptRequest,
  dir: HookTempDir,
  deps: HookRunDeps,
): Promise<EnabledScriptResult> {
  const { logger } = deps;
  const env = {
    ...deps.baseEnv,
    VALUES_PATH: await dir.write('values.json', request.valuesJson),
    CONFIG_VALUES_PATH: await dir.write('config-values.json', request.configValuesJson),
    MODULE_ENABLED_RESULT: await dir.write('module-enabled-result', ''),
    MODULE_ENABLED_REASON: await dir.write('module-enabled-reason', ''),
  };
  const outcome = await runProcess(
    { file: request.path, args: [], env, cwd: deps.cwd },
    { limits: { ...deps.limits, timeoutMs: request.timeoutMs }, logger },
    deps,
  );
  const failure = describeFailure(outcome);
  if (failure) {
    return failed(request.path, failure.problem, failure.hint, failure.cause, outcome.stderrTail);
  }
  const written = await dir.read('module-enabled-result', 1024);
  const reasonFile = await dir.read('module-enabled-reason', 64 * 1024);
  const reason = reasonFile.ok && reasonFile.text.trim() !== '' ? reasonFile.text.trim() : undefined;
  const verdict = written.ok ? written.text.trim() : undefined;
  if (verdict === 'true' || verdict === 'false') {
    logger.debug('enabled script ran', { enabled: verdict, reason });
    return { outcome: 'script', enabled: verdict === 'true', reason, error: undefined };
  }
  const error = new HookError(
    'enabled-script-invalid-result',
    { kind: 'enabled script', name: request.path },
    written.ok
      ? `wrote ${describeWritten(written.text)} to $MODULE_ENABLED_RESULT, expected true or false`
      : `$MODULE_ENABLED_RESULT: ${written.problem}`,
    'Make the script write exactly `true` or `false`, e.g. `echo false > "$MODULE_ENABLED_RESULT"`.',
  );
  return { outcome: 'failed', enabled: false, reason, error };
}

function describeWritten(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'nothing';
  return `'${trimmed.length > 100 ? `${trimmed.slice(0, 100)}…` : trimmed}'`;
}

function failed(
  path: string,
  problem: string,
  hint: string,
  cause: unknown,
  stderrTail?: string,
): EnabledScriptResult {
  const error = new HookError(
    'enabled-script-failed',
    { kind: 'enabled script', name: path },
    problem,
    hint,
    stderrTail === undefined ? { cause } : { cause, stderrTail },
  );
  return { outcome: 'failed', enabled: false, reason: undefined, error };
}
