import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildOnce, isErrnoCode } from './build-lock.ts';

/** The harness's cache, outside the repository so a clean checkout reuses built binaries. */
export function cacheDir(...parts: string[]): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'kaddon', ...parts);
}

/**
 * Makes sure `finalDir` holds a finished result. Unless `isFilled` already says so, `fill` writes
 * the result into a fresh staging directory and returns the folder in it to publish, which then
 * moves into place in one rename: a reader sees nothing or complete files, never a half build.
 */
export async function fillCacheDir(
  finalDir: string,
  isFilled: () => Promise<boolean>,
  fill: (stagingDir: string) => Promise<string>,
): Promise<void> {
  await mkdir(path.dirname(finalDir), { recursive: true });
  await buildOnce(`${finalDir}.lock`, isFilled, async () => {
    // Beside finalDir, so publishing is a rename on one file system.
    const staging = await mkdtemp(`${finalDir}.tmp-`);
    try {
      await publishDir(await fill(staging), finalDir);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  });
}

/** When a concurrent run published first (its lock taken over as stale), its copy is kept. */
async function publishDir(readyDir: string, finalDir: string): Promise<void> {
  try {
    await rename(readyDir, finalDir);
  } catch (error: unknown) {
    if (!isErrnoCode(error, 'ENOTEMPTY') && !isErrnoCode(error, 'EEXIST')) throw error;
  }
}
