import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError } from './cluster-error.ts';
import { readLogTail, type ServerProcess } from './server-process.ts';

const pollMs = 100;

/**
 * Polls `probe` until it answers true. Fails early, with the log's last lines, when the server
 * exits; fails with the same after `timeoutMs`.
 */
export async function waitUntilReady(
  server: ServerProcess,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exit = server.exitReason();
    if (exit !== undefined)
      throw await notReady(server, 'process-exited', `exited (${exit}) before it was ready`);
    if (await probe().catch(() => false)) return;
    await sleep(pollMs);
  }
  throw await notReady(server, 'readiness-timeout', `not ready after ${timeoutMs / 1000} s`);
}

async function notReady(
  server: ServerProcess,
  code: 'process-exited' | 'readiness-timeout',
  problem: string,
): Promise<ClusterError> {
  const output = await readLogTail(server.logFile);
  const subject = `test cluster '${server.name}' (pid ${server.pid})`;
  const hint =
    'Its log lines above say why; "address already in use" means another process took the port first: run again.';
  return new ClusterError(code, subject, `${problem}; the last lines of its log follow`, hint, { output });
}
