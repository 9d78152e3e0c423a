import { hookCommand } from './run-hook-command.ts';
import type { HookRunDeps } from './run-hook-deps.ts';
import { describeFailure, HookError } from './run-hook-error.ts';
import { withHookTempDir, type HookTempDir } from './run-hook-files.ts';
import { runProcess, type ProcessOutcome } from './run-hook-process.ts';
import type { HookUsage } from './run-hook-usage.ts';

/** One run of an executable hook (docs/hooks.md, docs/lifecycle.md: what each step passes). */
export interface HookRunRequest {
  /** The name logs, metrics and errors show: the hook's path relative to its hooks directory. */
  readonly name: string;
  /** The executable file. */
  readonly path: string;
  /** Written to $BINDING_CONTEXT_PATH as given: a JSON array of binding contexts. */
  readonly bindingContextJson: string;
  /** Written to $VALUES_PATH as given: the merged values. */
  readonly valuesJson: string;
  /** Written to $CONFIG_VALUES_PATH as given: the values from the ConfigMap. */
  readonly configValuesJson: string;
  /** More variables for this run; they cannot replace the contract's file variables. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** Undefined: the hook may run as long as it likes, as in addon-operator. */
  readonly timeoutMs?: number;
  /** A module's `hooks/venv`: `.py` hooks then run with its python3 and PYTHONHOME (addon-operator). */
  readonly pythonVenv?: string;
}

export interface HookRunResult {
  /** Exit code 0, in time, and every output file readable. */
  readonly ok: boolean;
  readonly exitCode: number | undefined;
  readonly signal: NodeJS.Signals | undefined;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** CPU seconds and max RSS where /proc gives them (see createProcUsageProbe). */
  readonly usage: HookUsage | undefined;
  /**
   * The last lines of stdout and stderr, at most 2,048 characters each, as the hook wrote them:
   * masked and cleaned only where they leave the operator (docs/hooks.md "What of a hook's output
   * leaves the operator").
   */
  readonly output: { readonly stdout: string; readonly stderr: string };
  /**
   * The output files as the hook left them, also after a failure (object patches of a failed module hook
   * still apply).
   */
  readonly valuesPatchText: string;
  readonly configPatchText: string;
  readonly metricsText: string;
  readonly kubernetesPatchText: string;
  /** Why `ok` is false. */
  readonly error: HookError | undefined;
}

/** The files a hook writes back: variable → file name in the run's temp dir. */
const OUTPUT_FILES = {
  VALUES_JSON_PATCH_PATH: 'values.json-patch',
  CONFIG_VALUES_JSON_PATCH_PATH: 'config-values.json-patch',
  METRICS_PATH: 'metrics.json',
  KUBERNETES_PATCH_PATH: 'kubernetes-patch',
} as const;

/**
 * Runs a hook with the file contract of docs/hooks.md and returns what it did; a failing hook is a value, not
 * an exception.
 */
export async function runHook(request: HookRunRequest, deps: HookRunDeps): Promise<HookRunResult> {
  const logger = deps.logger.child({ hook: request.name });
  return withHookTempDir(deps.tmpRoot, deps.keepTempFiles, async (dir) => {
    const contractEnv = await writeContractFiles(dir, request);
    const env = { ...deps.baseEnv, ...request.extraEnv, ...contractEnv };
    const spec = hookCommand(request, [], env, deps.cwd);
    logger.debug('run hook', { tmpDir: dir.path });
    const outcome = await runProcess(
      spec,
      { limits: { ...deps.limits, timeoutMs: request.timeoutMs }, logger },
      deps,
    );
    const outputs = await readOutputs(dir, deps.limits.maxOutputFileBytes);
    const error = runError(request.name, outcome, outputs.problem);
    logger.debug('hook run finished', {
      durationMs: Math.round(outcome.durationMs),
      ok: error === undefined,
    });
    return {
      ok: error === undefined,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      durationMs: outcome.durationMs,
      usage: outcome.usage,
      output: { stdout: outcome.stdoutTail, stderr: outcome.stderrTail },
      ...outputs.texts,
      error,
    };
  });
}

async function writeContractFiles(
  dir: HookTempDir,
  request: HookRunRequest,
): Promise<Record<string, string>> {
  // Written at once: each write is a round trip to libuv's thread pool, and a run makes seven.
  const inputs = [
    ['BINDING_CONTEXT_PATH', 'binding-context.json', request.bindingContextJson],
    ['VALUES_PATH', 'values.json', request.valuesJson],
    ['CONFIG_VALUES_PATH', 'config-values.json', request.configValuesJson],
    ...Object.entries(OUTPUT_FILES).map(([variable, file]) => [variable, file, ''] as const),
  ] as const;
  const written = await Promise.all(
    inputs.map(async ([variable, file, text]) => [variable, await dir.write(file, text)] as const),
  );
  return Object.fromEntries(written);
}

async function readOutputs(
  dir: HookTempDir,
  maxBytes: number,
): Promise<{
  texts: Pick<HookRunResult, 'valuesPatchText' | 'configPatchText' | 'metricsText' | 'kubernetesPatchText'>;
  problem: string | undefined;
}> {
  const read = async (variable: keyof typeof OUTPUT_FILES): Promise<[string, string | undefined]> => {
    const file = await dir.read(OUTPUT_FILES[variable], maxBytes);
    return file.ok ? [file.text, undefined] : ['', `$${variable}: ${file.problem}`];
  };
  const [values, config, metrics, kubernetes] = await Promise.all([
    read('VALUES_JSON_PATCH_PATH'),
    read('CONFIG_VALUES_JSON_PATCH_PATH'),
    read('METRICS_PATH'),
    read('KUBERNETES_PATCH_PATH'),
  ]);
  return {
    texts: {
      valuesPatchText: values[0],
      configPatchText: config[0],
      metricsText: metrics[0],
      kubernetesPatchText: kubernetes[0],
    },
    problem: [values, config, metrics, kubernetes].map(([, problem]) => problem).find((p) => p !== undefined),
  };
}

/** Why the run failed, if it did: first the process, then its output files. */
function runError(
  name: string,
  outcome: ProcessOutcome,
  outputProblem: string | undefined,
): HookError | undefined {
  const subject = { kind: 'hook', name } as const;
  const failure = describeFailure(outcome);
  if (failure) {
    return new HookError(failure.code, subject, failure.problem, failure.hint, {
      cause: failure.cause,
      stderrTail: outcome.stderrTail,
    });
  }
  if (outputProblem === undefined) return undefined;
  return new HookError(
    'hook-output-invalid',
    subject,
    outputProblem,
    'Write patches and metrics as the contract says (docs/hooks.md).',
  );
}
