import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The checked-out revisions of a source under `<cacheDir>/revisions/<sha>`, each written once and
 * never changed, and the `<cacheDir>/current` link to the one in use, replaced by a rename so a
 * reader sees the old revision or the new one, never a mix.
 */
export class RevisionStore {
  readonly cacheDir: string;

  constructor(cacheDir: string) {
    this.cacheDir = cacheDir;
  }

  get currentLink(): string {
    return path.join(this.cacheDir, 'current');
  }

  revisionDir(sha: string): string {
    return path.join(this.cacheDir, 'revisions', sha);
  }

  /** A fresh directory to check `sha` out into before it is published. */
  stagingDir(sha: string): string {
    const dir = path.join(this.cacheDir, 'staging', `${sha}-${process.pid}-${Date.now()}`);
    mkdirSync(path.dirname(dir), { recursive: true });
    return dir;
  }

  has(sha: string): boolean {
    return existsSync(this.revisionDir(sha));
  }

  /** Moves a complete checkout into place; the rename makes it appear whole. */
  publish(sha: string, staged: string): string {
    const dir = this.revisionDir(sha);
    mkdirSync(path.dirname(dir), { recursive: true });
    if (existsSync(dir)) rmSync(staged, { recursive: true, force: true });
    else renameSync(staged, dir);
    return dir;
  }

  /** Points `current` at `sha`: a new link renamed over the old one. */
  pointCurrent(sha: string): void {
    const next = `${this.currentLink}.next-${process.pid}`;
    rmSync(next, { force: true });
    symlinkSync(path.join('revisions', sha), next);
    renameSync(next, this.currentLink);
  }

  /** The revision `current` points to, when it points to one that exists (left by an earlier run). */
  readCurrent(): string | undefined {
    try {
      const sha = path.basename(readlinkSync(this.currentLink));
      return this.has(sha) ? sha : undefined;
    } catch {
      return undefined;
    }
  }

  remove(sha: string): void {
    rmSync(this.revisionDir(sha), { recursive: true, force: true });
  }

  /** Deletes every revision but `keep`, and any checkout left half-done in staging. */
  prune(keep: readonly string[]): void {
    const revisions = path.join(this.cacheDir, 'revisions');
    if (existsSync(revisions))
      for (const sha of readdirSync(revisions)) if (!keep.includes(sha)) this.remove(sha);
    rmSync(path.join(this.cacheDir, 'staging'), { recursive: true, force: true });
  }
}
