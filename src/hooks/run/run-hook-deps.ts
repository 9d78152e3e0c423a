import type { Logger } from '../../observability/logger.ts';
import {
  signalProcessGroup,
  spawnWithExeca,
  type ProcessDeps,
  type ProcessLimits,
} from './run-hook-process.ts';
import { createProcUsageProbe } from './run-hook-usage.ts';

export interface HookRunLimits extends Omit<ProcessLimits, 'timeoutMs'> {
  /** The largest output file (patches, metrics) that is read back. */
  readonly maxOutputFileBytes: number;
}

export interface HookRunDeps extends ProcessDeps {
  readonly logger: Logger;
  /** The inherited part of the environment (selectHookEnv). */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Hooks run in the operator's working directory, as addon-operator runs them (`/` in its image). */
  readonly cwd: string;
  /** Where the per-run temp dirs are made (addon-operator's --tmp-dir). */
  readonly tmpRoot: string;
  /** DEBUG_KEEP_TMP_FILES: leave the temp dirs for inspection. */
  readonly keepTempFiles: boolean;
  readonly limits: HookRunLimits;
}

export const DEFAULT_HOOK_RUN_LIMITS: HookRunLimits = {
  killGraceMs: 5_000,
  drainMs: 2_000,
  maxLineBytes: 16 * 1024,
  maxCapturedBytes: 4 * 1024 * 1024,
  maxLoggedBytes: 4 * 1024 * 1024,
  maxOutputFileBytes: 64 * 1024 * 1024,
};

/** One probe for the whole process, so that overlapping runs know of each other. */
const sharedUsageProbe = createProcUsageProbe();

/** Real processes, real time and /proc usage; the environment, directories and logger come from the caller. */
export function createHookRunDeps(
  given: Pick<HookRunDeps, 'logger' | 'baseEnv' | 'cwd' | 'tmpRoot'> & Partial<HookRunDeps>,
): HookRunDeps {
  return {
    spawn: spawnWithExeca,
    signalGroup: signalProcessGroup,
    now: () => performance.now(),
    usageProbe: sharedUsageProbe,
    keepTempFiles: false,
    limits: DEFAULT_HOOK_RUN_LIMITS,
    ...given,
  };
}
