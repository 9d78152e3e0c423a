import { KaddonError } from '../core/errors.ts';

export type GitSourceErrorCode =
  | 'config-invalid'
  | 'remote-unavailable'
  | 'ref-not-found'
  | 'git-failed'
  | 'symlink-escapes'
  | 'revision-invalid';

/**
 * A Git modules source that cannot sync. Messages never carry credentials: every text that comes
 * from git or names the remote passes through the source's redactor first.
 */
export class GitSourceError extends KaddonError {
  readonly code: GitSourceErrorCode;
  /** The file in the revision the error is about, when there is one. */
  readonly file: string | undefined;
  /** The message without its subject, to wrap in another error. */
  readonly problem: string;

  constructor(
    code: GitSourceErrorCode,
    subject: string,
    problem: string,
    hint: string,
    options?: { file?: string; cause?: unknown },
  ) {
    super(
      `${subject}: ${problem}.`,
      hint,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.file = options?.file;
    this.problem = problem;
  }
}
