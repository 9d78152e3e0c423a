/**
 * Every deliberate error is a KaddonError: a stable `code`, a message that reads `<subject> '<id>': <what is
 * wrong>.` and a `hint` that says what to do (docs/architecture.md "House style").
 */
export abstract class KaddonError extends Error {
  abstract readonly code: string;
  readonly hint: string;

  constructor(message: string, hint: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.hint = hint;
  }

  /** The message and the hint, as the CLI prints them. */
  describe(): string {
    return this.hint ? `${this.message} ${this.hint}` : this.message;
  }
}

export type KustomizeErrorCode =
  | 'kustomization-not-found'
  | 'kustomization-invalid'
  | 'path-not-allowed'
  | 'path-not-found'
  | 'cycle'
  | 'too-deep'
  | 'resource-invalid'
  | 'duplicate-id'
  | 'wrong-kind'
  | 'patch-invalid'
  | 'patch-target-not-found'
  | 'patch-failed'
  | 'generator-invalid'
  | 'field-spec-invalid'
  | 'var-invalid'
  | 'replacement-invalid'
  | 'transformer-invalid'
  | 'name-reference-ambiguous'
  | 'yaml-invalid';

/** A kustomization tree that kustomize would refuse to build, with the file to fix. */
export class KustomizeError extends KaddonError {
  readonly code: KustomizeErrorCode;
  /** The file (or directory) the error is about, as a path the user can open. */
  readonly file: string;

  constructor(
    code: KustomizeErrorCode,
    file: string,
    problem: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(`kustomization '${file}': ${problem}.`, hint, options);
    this.code = code;
    this.file = file;
  }
}

/** A YAML or JSON document that does not parse, with the file and line. */
export class ParseError extends KaddonError {
  readonly code = 'parse-error';
  readonly file: string;
  readonly line: number | undefined;

  constructor(
    file: string,
    line: number | undefined,
    problem: string,
    options?: { cause?: unknown; hint?: string },
  ) {
    super(
      `file '${file}${line === undefined ? '' : `:${line}`}': ${problem}.`,
      options?.hint ?? 'Fix the YAML syntax at that place.',
      options,
    );
    this.file = file;
    this.line = line;
  }
}

/** What was thrown, as an Error (a thrown string or object becomes an Error with its text). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** The message of what was thrown (a thrown string or object as its text). */
export function errorMessage(thrown: unknown): string {
  return asError(thrown).message;
}
