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

type StopSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP';

/**
 * The one place kaddon listens to stop signals. `once`: a listener is removed by its first signal,
 * so a second one takes Node's default and ends kaddon at once; `always`: later signals are ignored.
 * Returns the removal of the listeners.
 */
function listenForSignals(
  signals: readonly StopSignal[],
  mode: 'once' | 'always',
  onSignal: (signal: StopSignal) => void,
): () => void {
  for (const signal of signals) {
    if (mode === 'once') process.once(signal, onSignal);
    else process.on(signal, onSignal);
  }
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
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
  const release = listenForSignals(['SIGTERM', 'SIGINT', 'SIGHUP'], 'once', () => {
    controller.abort();
  });
  return { signal: controller.signal, release };
}

/**
 * `kaddon operator`'s stop: resolves with the first SIGTERM's or SIGINT's name. The listeners stay
 * installed (later signals are ignored): execa's `cleanup` (signal-exit) re-raises a signal when its
 * own handler is the only listener left, which killed the operator by the signal while a helm child
 * ran instead of exiting 0.
 */
export function waitForStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    listenForSignals(['SIGTERM', 'SIGINT'], 'always', resolve);
  });
}

/** Fails the command when a signal arrived while it was working. */
export function throwIfStopped(signal: AbortSignal, command: string): void {
  if (signal.aborted) throw new StoppedBySignalError(command);
}
