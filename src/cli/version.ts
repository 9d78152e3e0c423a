import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../processes/package-root.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

const versionUsage = `Usage: kaddon version [-o text|json]

Prints kaddon's version, the commit of a Git checkout, and Node's version.

Options:
  -o, --output text|json   output format (default text)`;

/**
 * `kaddon version` and `kaddon --version`: the package version and, in a Git checkout, the commit,
 * as a bug report needs them.
 */
export function runVersion(args: readonly string[], io: CliIo): void {
  const { values } = parseArgs({
    args: [...args],
    options: {
      output: { type: 'string', short: 'o', default: 'text' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(`${versionUsage}\n`);
    return;
  }
  if (values.output !== 'text' && values.output !== 'json')
    throw new UsageError(`--output must be text or json, not '${values.output}'`, versionUsage);
  const root = packageRoot(import.meta.url);
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
  const version = manifest.version ?? 'unknown';
  const commit = gitCommit(root);
  io.stdout(
    values.output === 'json'
      ? `${JSON.stringify({ version, ...(commit ? { commit } : {}), node: process.version })}\n`
      : `kaddon ${version}${commit ? ` (commit ${commit})` : ''} node ${process.version}\n`,
  );
}

/**
 * The git directory of a checkout: `.git` itself, or where a `.git` file points (`gitdir: …`, a
 * worktree made by `git worktree add`), with the common directory that holds the shared refs.
 */
function gitDirs(root: string): { readonly gitDir: string; readonly commonDir: string } {
  const dotGit = path.join(root, '.git');
  if (!statSync(dotGit).isFile()) return { gitDir: dotGit, commonDir: dotGit };
  const pointer = /^gitdir: (.+)$/mu.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  if (pointer === undefined) throw new Error(`${dotGit}: no gitdir line`);
  const gitDir = path.resolve(root, pointer);
  const common = path.join(gitDir, 'commondir');
  const commonDir = existsSync(common) ? path.resolve(gitDir, readFileSync(common, 'utf8').trim()) : gitDir;
  return { gitDir, commonDir };
}

/** HEAD's commit read from .git without running git; undefined outside a checkout. */
export function gitCommit(root: string): string | undefined {
  try {
    const { gitDir, commonDir } = gitDirs(root);
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head.slice(0, 12);
    const ref = head.slice(5);
    const loose = [path.join(gitDir, ref), path.join(commonDir, ref)].find((file) => existsSync(file));
    if (loose !== undefined) return readFileSync(loose, 'utf8').trim().slice(0, 12);
    const packed = readFileSync(path.join(commonDir, 'packed-refs'), 'utf8');
    const line = packed.split('\n').find((entry) => entry.endsWith(` ${ref}`));
    return line?.slice(0, 12);
  } catch {
    return undefined;
  }
}
