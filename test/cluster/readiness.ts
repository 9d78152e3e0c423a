import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError } from './cluster-error.ts';
import { readLogTail, startServerProcess, type ServerProcess, type ServerSpec } from './server-process.ts';

const pollMs = 100;

/**
 * Starts a server and returns it once `probe` answers true. One that does not get there is stopped
 * before the error is thrown: nobody else holds it to stop it later.
 */
export async function startReadyServer(
  spec: ServerSpec,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<ServerProcess> {
  const server = startServerProcess(spec);
  try {
    await waitUntilReady(server, probe, timeoutMs);
  } catch (error: unknown) {
    await server.stop();
    throw error;
  }
  return server;
}

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
