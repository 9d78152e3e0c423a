import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../core/path-containment.ts';
import { GitSourceError } from './git-source-error.ts';

/**
 * Refuses a checked-out revision with a symlink that leads outside it: an absolute target, or a
 * relative one that resolves (through other links too) beyond `root`. The loader's allowedRoots
 * guard the paths a kustomization names; this guards the links a repository carries.
 */
export function checkSymlinks(root: string, subject: string): void {
  const realRoot = realpathSync(root);
  for (const link of findSymlinks(root)) {
    const target = readlinkSync(link);
    const resolved = resolveLink(link, target);
    if (path.isAbsolute(target) || !isWithin(realRoot, resolved)) {
      const file = path.relative(root, link);
      throw new GitSourceError(
        'symlink-escapes',
        subject,
        `${file}: the symlink to '${target}' leads outside the repository`,
        'Point the link at a file inside the repository, or copy the file in. The last good revision stays in use.',
        { file },
      );
    }
  }
}

function* findSymlinks(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) yield full;
    else if (entry.isDirectory()) yield* findSymlinks(full);
  }
}

/** Where the link ends up: its real path when it exists, else the target taken literally. */
function resolveLink(link: string, target: string): string {
  try {
    return realpathSync(link);
  } catch {
    return path.resolve(realpathSync(path.dirname(link)), target);
  }
}
