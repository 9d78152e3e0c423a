import { KaddonError } from '../core/errors.ts';

/** SIGTERM, SIGINT or SIGHUP stopped a command before it printed anything. */
class StoppedBySignalError extends KaddonError {
  readonly code = 'stopped-by-signal';
  constructor(command: string) {
    super(
      `${command}: stopped by a signal (SIGTERM, SIGINT or SIGHUP); nothing was printed.`,
      'Run it again.',
    );
  }
}

/**
 * Aborted on the first SIGTERM, SIGINT or SIGHUP (the terminal or the parent shell went away): the running hook's or helm's process group is ended and
 * its temp files removed before the command fails with exit 1, so a stopped `kaddon build` or
 * `kaddon rbac` leaves nothing running or behind (helm and hooks run in process groups of their
 * own, which a terminal's Ctrl-C does not reach). A second signal ends kaddon at once. `release`
 * removes the listeners when the command is done.
 */
export function stopOnSignals(): { readonly signal: AbortSignal; readonly release: () => void } {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('SIGHUP', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      process.off('SIGHUP', stop);
    },
  };
}

/** Fails the command when a signal arrived while it was working. */
export function throwIfStopped(signal: AbortSignal, command: string): void {
  if (signal.aborted) throw new StoppedBySignalError(command);
}
