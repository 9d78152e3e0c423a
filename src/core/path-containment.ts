import path from 'node:path';

/**
 * True when `candidate` is `root` or lies below it. Both are absolute and compared as written:
 * where a symlink could lead elsewhere, the caller passes real paths. This is the one check behind
 * every "may not leave the tree" rule (kustomization roots, Git symlinks, hooks, tree files).
 */
export function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}
