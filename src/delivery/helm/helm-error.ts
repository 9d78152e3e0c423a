import { KaddonError } from '../../core/errors.ts';

/** How many stderr lines a HelmError quotes: helm prints the cause last. */
const QUOTED_STDERR_LINES = 5;

/** A helm command that failed, did not finish in time, or printed what kaddon cannot read. */
export class HelmError extends KaddonError {
  readonly code = 'helm-failed';
  readonly release: string;
  /** The helm command without the binary's path, e.g. `upgrade --install echo-server /tmp/…`. */
  readonly command: string;
  readonly stderr: string;

  constructor(
    release: string,
    command: string,
    problem: string,
    stderr: string,
    options?: { cause?: unknown },
  ) {
    const tail = lastLines(stderr);
    super(
      `release '${release}': helm ${command}: ${problem}${tail ? `: ${tail}` : ''}.`,
      'Check the rendered manifest (kaddon build --module) and the release (helm history); kaddon retries with backoff.',
      options,
    );
    this.release = release;
    this.command = command;
    this.stderr = stderr;
  }
}

function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.slice(-QUOTED_STDERR_LINES).join(' | ');
}
