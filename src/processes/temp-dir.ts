import { mkdtemp, rm } from 'node:fs/promises';
import { orphanWatchdog } from './orphan-watchdog.ts';

/** A private directory (mode 0700, as mkdtemp makes it) that is removed even if kaddon is killed. */
export interface TempDir {
  readonly path: string;
  /** Removes it and all it holds; a second call does nothing. */
  remove(): Promise<void>;
}

/**
 * mkdtemp with `prefix`, listed with the orphan watchdog until removed, so that a kaddon that
 * exits or is killed while a helm or hook run uses it leaves no values file behind
 * (docs/lifecycle.md "Bounds and timeouts").
 */
export async function makeTempDir(prefix: string): Promise<TempDir> {
  const dir = await mkdtemp(prefix);
  const removed = orphanWatchdog.watchTempDir(dir);
  let removing: Promise<void> | undefined;
  return {
    path: dir,
    remove: () => (removing ??= rm(dir, { recursive: true, force: true }).then(removed)),
  };
}
