/** Synchronous cleanups run when this process exits or is told to stop, however that happens. */
const cleanups = new Set<() => void>();
const signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

/** Registers `cleanup`; the returned function unregisters it once the cluster stopped normally. */
export function onProcessExit(cleanup: () => void): () => void {
  install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runCleanups);
  for (const signal of signals)
    process.once(signal, () => {
      onSignal(signal);
    });
}

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // One failing cleanup must not keep the others from running.
    }
  }
  cleanups.clear();
}

/** Cleans up, then dies of the same signal unless someone else listens for it. */
function onSignal(signal: NodeJS.Signals): void {
  runCleanups();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}
