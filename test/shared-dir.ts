import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** ../shared beside the repository root: the seeds, references and conformance corpus. */
export function sharedDir(): string {
  const dir = process.env.KADDON_SHARED_DIR ?? path.resolve(repoRoot, '../shared');
  if (!existsSync(dir)) {
    throw new Error(
      `shared directory not found at ${dir}: check out shared/ beside the repository or set KADDON_SHARED_DIR`,
    );
  }
  return dir;
}
