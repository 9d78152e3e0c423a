import type * as SimpleGit from 'simple-git';
import { loadOnUse } from '../core/load-on-use.ts';
import type { GitEnvironment } from './git-environment.ts';
import { GitSourceError } from './git-source-error.ts';
import type { Redact } from './redact-secrets.ts';

/** Runs one git command and returns its stdout; failures are GitSourceErrors with redacted text. */
export type RunGit = (args: readonly string[], options?: RunGitOptions) => Promise<string>;

interface RunGitOptions {
  readonly cwd?: string;
  /** Variables for this command only (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface GitRunnerOptions {
  readonly environment: GitEnvironment;
  readonly redact: Redact;
  /** What the errors are about, already redacted: `git source 'https://***@host/repo'`. */
  readonly subject: string;
  /** A git process silent for this long is killed (a hung server). */
  readonly blockTimeoutMs?: number;
  /** Ends the running git process (SIGTERM or SIGINT of `sync` and `build --git-url`). */
  readonly stopSignal?: AbortSignal;
}

/**
 * simple-git, loaded when the first git command runs: an operator without a Git source never loads
 * it (1.5 MiB of heap, its code and source text kept for the life of the process otherwise).
 */
const simpleGitLibrary = loadOnUse('simple-git') as () => typeof SimpleGit;

/** git through simple-git, with the source's environment and nothing inherited. */
export function createGitRunner(options: GitRunnerOptions): RunGit {
  const { environment, redact, subject } = options;
  return async (args, run = {}) => {
    const { simpleGit, GitError } = simpleGitLibrary();
    const git = simpleGit({
      binary: environment.binary,
      ...(run.cwd === undefined ? {} : { baseDir: run.cwd }),
      timeout: { block: options.blockTimeoutMs ?? 120_000 },
      ...(options.stopSignal === undefined ? {} : { abort: options.stopSignal }),
      unsafe: {
        allowUnsafeAskPass: environment.allowAskPass,
        allowUnsafeSshCommand: environment.allowSshCommand,
      },
    }).env({ ...environment.env, ...run.env });
    try {
      return await git.raw([...args]);
    } catch (error: unknown) {
      const detail = error instanceof GitError ? error.message : String(error);
      throw new GitSourceError(
        'git-failed',
        subject,
        `git ${args[0] ?? ''} failed: ${redact(detail.trim()).replace(/\s+/g, ' ')}`,
        'Check the URL, the credentials and that the remote is reachable.',
      );
    }
  };
}
