import { KaddonError } from '../core/errors.ts';

/** The command line itself is wrong: the message, then the subcommand's usage. */
export class UsageError extends KaddonError {
  readonly code = 'usage';
  constructor(problem: string, usage: string) {
    super(`command line: ${problem}.`, `\n${usage}`);
  }
}
