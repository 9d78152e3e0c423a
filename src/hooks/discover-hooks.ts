import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { KaddonError } from '../core/errors.ts';
import { isWithin } from '../core/path-containment.ts';
import type { HookIdentity, HookOwner } from './hook-config.ts';

/**
 * Finding hook files (docs/hooks.md "Where hooks live"). As addon-operator
 * does: every executable file under the hooks directory, recursively; hidden files and
 * directories, `lib` directories (and `venv` in modules) and .yaml/.json/.md/.txt files are
 * skipped; a file without an exec bit is skipped with a warning; paths are sorted by their bytes.
 */

export interface HookDescriptor extends HookIdentity {
  /** Absolute path of the executable. */
  readonly path: string;
}

export interface HookDiscovery {
  readonly hooks: readonly HookDescriptor[];
  readonly warnings: readonly string[];
}

export interface DiscoverHooksOptions {
  /**
   * Whether an executable without an extension is a module-sdk batch hook (addon-operator runs
   * `<file> hook list` and looks for `Found N items`; see isBatchHookListing). Batch hooks are
   * not shell hooks and are left out with a warning. Without it, every executable is a hook.
   */
  readonly isBatchHook?: (file: string) => Promise<boolean>;
}

/** A hooks directory kaddon cannot read. */
export class HookDiscoveryError extends KaddonError {
  readonly code = 'hook-discovery-failed';
  constructor(dir: string, problem: string, options?: { cause?: unknown }) {
    super(
      `hooks directory '${dir}': ${problem}.`,
      'Check that the directory exists and kaddon may read it.',
      options,
    );
  }
}

const SKIPPED_EXTENSIONS = ['.yaml', '.json', '.md', '.txt'];

/**
 * Global hooks live in `$GLOBAL_HOOKS_DIR/hooks`, or in `$GLOBAL_HOOKS_DIR` itself when it has no
 * `hooks` subdirectory (addon-operator's fallback). A hook is named by its path relative to that
 * directory, e.g. `001-foo/bar.sh`. A missing directory means no global hooks.
 */
export async function discoverGlobalHooks(
  globalHooksDir: string,
  options: DiscoverHooksOptions = {},
): Promise<HookDiscovery> {
  const dir = path.resolve(globalHooksDir);
  if (!(await isDirectory(dir))) return { hooks: [], warnings: [] };
  const hooksDir = path.join(dir, 'hooks');
  const root = (await isDirectory(hooksDir)) ? hooksDir : dir;
  return discoverHooks(
    root,
    ['lib'],
    (file) => ({ name: path.relative(root, file), owner: { kind: 'global' } }),
    options,
    path.dirname(dir),
  );
}

/**
 * Module hooks live in `<module>/hooks` and are named from there, e.g. `hooks/bar.sh`, as current
 * addon-operator names them (docs/hooks.md "Where hooks live").
 */
export async function discoverModuleHooks(
  module: { readonly name: string; readonly dir: string },
  options: DiscoverHooksOptions = {},
): Promise<HookDiscovery> {
  const moduleDir = path.resolve(module.dir);
  const root = path.join(moduleDir, 'hooks');
  if (!(await isDirectory(root))) return { hooks: [], warnings: [] };
  const owner: HookOwner = { kind: 'module', module: module.name };
  return discoverHooks(
    root,
    ['lib', 'venv'],
    (file) => ({ name: path.relative(moduleDir, file), owner }),
    options,
    // The tree the modules directory belongs to: a hook may link to a shared script in it.
    path.dirname(path.dirname(moduleDir)),
  );
}

/** `hook list` output of a module-sdk batch hook, as addon-operator recognises it. */
export function isBatchHookListing(output: string): boolean {
  return /Found ([1-9]\d{0,3}) items/.test(output);
}

async function discoverHooks(
  root: string,
  excludedDirs: readonly string[],
  identify: (file: string) => HookIdentity,
  options: DiscoverHooksOptions,
  allowedRoot: string,
): Promise<HookDiscovery> {
  const warnings: string[] = [];
  const files = await findExecutables(root, excludedDirs, warnings, await realpath(allowedRoot));
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hooks: HookDescriptor[] = [];
  for (const file of files) {
    if (path.extname(file) === '' && (await options.isBatchHook?.(file))) {
      warnings.push(`${file} is skipped: it is a module-sdk batch hook, which kaddon does not run`);
      continue;
    }
    hooks.push({ ...identify(file), path: file });
  }
  return { hooks, warnings };
}

async function findExecutables(
  dir: string,
  excludedDirs: readonly string[],
  warnings: string[],
  allowedRoot: string,
): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readEntries(dir)) {
    if (entry.name.startsWith('.')) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!excludedDirs.includes(entry.name))
        found.push(...(await findExecutables(file, excludedDirs, warnings, allowedRoot)));
      continue;
    }
    // A hook from a tree may not be a link to a program outside that tree.
    const outside = entry.isSymbolicLink() ? await outsideOf(file, allowedRoot) : undefined;
    if (outside !== undefined) {
      warnings.push(`${file} is skipped: it resolves to '${outside}', outside '${allowedRoot}'`);
      continue;
    }
    if (SKIPPED_EXTENSIONS.includes(path.extname(entry.name))) continue;
    const kind = await fileKind(file);
    if (kind === 'executable') found.push(file);
    else if (kind === 'not-executable')
      warnings.push(`${file} is skipped: it has no executable permission; chmod +x it to make it a hook`);
    else if (kind === 'dangling') warnings.push(`${file} is skipped: it is a symlink to nothing`);
    else if (kind === 'directory-link')
      warnings.push(`${file} is skipped: symlinks to directories are not followed`);
  }
  return found;
}

/** The real path of a symlink when it lies outside `root`; undefined inside it or when it leads nowhere. */
async function outsideOf(file: string, root: string): Promise<string | undefined> {
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return undefined;
  return isWithin(root, real) ? undefined : real;
}

type FileKind = 'executable' | 'not-executable' | 'dangling' | 'directory-link' | 'special';

/** Symlinks are followed to what they point at, since that is what runs. */
async function fileKind(file: string): Promise<FileKind> {
  let info;
  try {
    info = await stat(file);
  } catch (error: unknown) {
    if (hasCode(error, 'ENOENT') || hasCode(error, 'ELOOP')) return 'dangling';
    throw new HookDiscoveryError(path.dirname(file), `cannot read ${file}`, { cause: error });
  }
  if (info.isDirectory()) return 'directory-link';
  if (!info.isFile()) return 'special';
  return (info.mode & 0o111) === 0 ? 'not-executable' : 'executable';
}

async function readEntries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error: unknown) {
    throw new HookDiscoveryError(dir, 'cannot be read', { cause: error });
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
