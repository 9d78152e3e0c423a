import { lstat, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../../processes/temp-dir.ts';

/** A private directory (mode 0700) for the files of one run; files in it are 0600. */
export interface HookTempDir {
  readonly path: string;
  /** Writes `text` to a new file and returns its path. */
  write(name: string, text: string): Promise<string>;
  /** Reads a file the process wrote back; see readOutputFile. */
  read(name: string, maxBytes: number): Promise<OutputFileText>;
}

type OutputFileText =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/**
 * Runs `body` with a fresh temp dir under `root` and removes the dir afterwards, whatever happens,
 * unless `keep` (addon-operator's DEBUG_KEEP_TMP_FILES, for debugging hooks).
 */
export async function withHookTempDir<T>(
  root: string,
  keep: boolean,
  body: (dir: HookTempDir) => Promise<T>,
): Promise<T> {
  // Kept for debugging: made as any directory, and left behind on purpose.
  const made = keep
    ? { path: await mkdtemp(path.join(root, 'kaddon-hook-')), remove: () => Promise.resolve() }
    : await makeTempDir(path.join(root, 'kaddon-hook-'));
  const dir = made.path;
  try {
    return await body({
      path: dir,
      async write(name, text) {
        const file = path.join(dir, name);
        await writeFile(file, text, { mode: 0o600, flag: 'wx' });
        return file;
      },
      read: (name, maxBytes) => readOutputFile(path.join(dir, name), maxBytes),
    });
  } finally {
    await made.remove();
  }
}

/**
 * The text of an output file. A missing file counts as empty (the hook removed it: it wrote
 * nothing); a file that is not a regular file (a FIFO would block the read) or is larger than
 * `maxBytes` is a problem the caller reports as the hook's.
 */
async function readOutputFile(file: string, maxBytes: number): Promise<OutputFileText> {
  let stats;
  try {
    stats = await lstat(file);
  } catch (error: unknown) {
    if (isMissing(error)) return { ok: true, text: '' };
    throw error;
  }
  if (!stats.isFile()) return { ok: false, problem: `${path.basename(file)} is not a regular file` };
  if (stats.size > maxBytes) {
    return {
      ok: false,
      problem: `${path.basename(file)} holds ${String(stats.size)} bytes, more than the limit of ${String(maxBytes)}`,
    };
  }
  return { ok: true, text: await readFile(file, 'utf8') };
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
