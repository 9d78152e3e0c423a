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
  /** Set when kaddon ended helm: past its time limit, or because kaddon is stopping. */
  readonly ended: 'timeout' | 'stop' | undefined;
  /** With `ended: 'timeout'`: the limit, e.g. `30 s (KADDON_HELM_TEMPLATE_TIMEOUT)`. */
  readonly limit: string | undefined;

  constructor(
    release: string,
    command: string,
    problem: string,
    stderr: string,
    options?: { cause?: unknown; ended?: 'timeout' | 'stop'; limit?: string },
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
    this.ended = options?.ended;
    this.limit = options?.limit;
  }
}

/** How much of one stderr line a message quotes: a recursing template makes lines of 100 KB. */
const QUOTED_LINE_CHARS = 400;

function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines
    .slice(-QUOTED_STDERR_LINES)
    .map((line) => cutLine(line))
    .join(' | ');
}

/** A line cut to QUOTED_LINE_CHARS, saying how long it was. */
export function cutLine(line: string): string {
  if (line.length <= QUOTED_LINE_CHARS) return line;
  return `${line.slice(0, QUOTED_LINE_CHARS)}… (cut: the line holds ${formatSize(line.length)})`;
}

/** `113 KB`, `2.1 MB`, `512 characters`. */
export function formatSize(characters: number): string {
  if (characters < 1024) return `${String(characters)} characters`;
  if (characters < 1024 * 1024) return `${String(Math.round(characters / 1024))} KB`;
  return `${(characters / (1024 * 1024)).toFixed(1)} MB`;
}
