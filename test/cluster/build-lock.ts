import { readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './server-process.ts';

const pollMs = 2000;

/**
 * Runs `build` unless another process holds `lockFile` for the same result; then waits for that
 * result instead of building it twice on a 2-core machine. The lock only saves work: publishing
 * by rename keeps the cache whole even when two builds do run (a lock taken over as stale).
 */
export async function buildOnce(
  lockFile: string,
  isBuilt: () => Promise<boolean>,
  build: () => Promise<void>,
): Promise<void> {
  while (!(await isBuilt())) {
    if (await tryLock(lockFile)) {
      try {
        if (!(await isBuilt())) await build();
      } finally {
        await rm(lockFile, { force: true });
      }
      return;
    }
    if (await isStale(lockFile)) await rm(lockFile, { force: true });
    else await sleep(pollMs);
  }
}

async function tryLock(lockFile: string): Promise<boolean> {
  try {
    await writeFile(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error: unknown) {
    if (isErrnoCode(error, 'EEXIST')) return false;
    throw error;
  }
}

/** Left by a process that died mid-build. */
async function isStale(lockFile: string): Promise<boolean> {
  const pid = Number(await readFile(lockFile, 'utf8').catch(() => ''));
  return Number.isInteger(pid) && pid > 0 && !isAlive(pid);
}

export function isErrnoCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
