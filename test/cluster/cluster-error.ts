import { KaddonError } from '../../src/core/errors.ts';

export type ClusterErrorCode =
  | 'tool-missing'
  | 'command-failed'
  | 'build-failed'
  | 'install-failed'
  | 'port-unavailable'
  | 'process-exited'
  | 'readiness-timeout'
  | 'cluster-not-found'
  | 'cluster-running';

/** Codes meaning a binary the cluster needs could not be obtained on this machine. */
const unobtainableCodes: readonly ClusterErrorCode[] = [
  'tool-missing',
  'build-failed',
  'install-failed',
];

/**
 * A failure of the test-cluster harness: `<subject>: <problem>.`, then any output that shows why
 * (a command's or a server's last lines, indented), then what to do.
 */
export class ClusterError extends KaddonError {
  readonly code: ClusterErrorCode;

  constructor(
    code: ClusterErrorCode,
    subject: string,
    problem: string,
    hint: string,
    options?: { cause?: unknown; output?: string },
  ) {
    super(`${subject}: ${problem}.${indented(options?.output)}`, hint, options);
    this.code = code;
  }
}

function indented(output: string | undefined): string {
  if (output === undefined) return '';
  return `\n${output.replace(/^/gm, '    ')}\n`;
}

/** Whether an error says a cluster binary cannot be had here (the only reason a test may skip). */
export function isUnobtainable(error: unknown): error is ClusterError {
  return error instanceof ClusterError && unobtainableCodes.includes(error.code);
}
