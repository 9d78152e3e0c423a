import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { RunGit } from './git-runner.ts';
import { GitSourceError } from './git-source-error.ts';

/** The remote's refs as `ls-remote --symref` lists them. */
export interface RemoteRefs {
  /** The branch HEAD points to (`refs/heads/main`), when the remote says. */
  readonly head: string | undefined;
  readonly refs: ReadonlyMap<string, string>;
}

const SHA = /^[0-9a-f]{40}$/;

/**
 * A bare mirror of the remote's branches and tags in one directory. It is a cache: when git
 * cannot use it, it is deleted and cloned again.
 */
export class GitMirror {
  readonly dir: string;
  readonly #url: string;
  readonly #git: RunGit;
  readonly #subject: string;

  constructor(dir: string, url: string, git: RunGit, subject: string) {
    this.dir = dir;
    this.#url = url;
    this.#git = git;
    this.#subject = subject;
  }

  /** The remote's refs; a failure here means the remote is unreachable (or refuses us). */
  async listRemote(): Promise<RemoteRefs> {
    let text: string;
    try {
      text = await this.#git(['ls-remote', '--symref', '--', this.#url]);
    } catch (error: unknown) {
      throw new GitSourceError(
        'remote-unavailable',
        this.#subject,
        `the remote cannot be listed (${error instanceof GitSourceError ? error.problem : 'git failed'})`,
        'The operator keeps the last good revision and retries with backoff; `kaddon sync` and `build --git-url` can be run again.',
      );
    }
    return parseLsRemote(text);
  }

  /** The commit a ref names on the remote: a branch, a tag, a full ref, a commit, or the default branch. */
  resolveRef(remote: RemoteRefs, ref: string | undefined): string {
    if (ref !== undefined && SHA.test(ref)) return ref;
    const candidates =
      ref === undefined
        ? [remote.head, 'HEAD']
        : [
            ref.startsWith('refs/') ? ref : undefined,
            `refs/heads/${ref}`,
            `refs/tags/${ref}^{}`,
            `refs/tags/${ref}`,
          ];
    for (const name of candidates) {
      const sha = name === undefined ? undefined : remote.refs.get(name);
      if (sha !== undefined) return sha;
    }
    throw new GitSourceError(
      'ref-not-found',
      this.#subject,
      `the ref '${ref ?? 'HEAD'}' is not on the remote`,
      'Push it, or set MODULES_GIT_REF to an existing branch, tag or commit. The last good revision stays in use.',
    );
  }

  /** Makes sure the mirror holds `sha`: fetches when it does not, re-clones when the mirror is broken. */
  async ensureCommit(sha: string): Promise<void> {
    if (await this.#isUsable()) {
      if (await this.#hasCommit(sha)) return;
      const fetched = await this.#fetch().then(
        () => true,
        () => false,
      );
      if (fetched && (await this.#hasCommit(sha))) return;
    }
    await this.recreate();
    await this.#fetch();
    if (!(await this.#hasCommit(sha)))
      throw new GitSourceError(
        'ref-not-found',
        this.#subject,
        `commit ${sha} is not reachable from the remote's branches and tags`,
        'Set MODULES_GIT_REF to a commit on a branch or tag.',
      );
  }

  /** Writes the tree of `sha` into `target` (which must not exist) without touching the mirror's HEAD. */
  async exportTree(sha: string, target: string): Promise<void> {
    mkdirSync(target, { recursive: true });
    const env = { GIT_DIR: this.dir, GIT_WORK_TREE: target, GIT_INDEX_FILE: `${target}.index` };
    try {
      await this.#git(['read-tree', sha], { cwd: target, env });
      await this.#git(['checkout-index', '--all', '--force'], { cwd: target, env });
    } finally {
      rmSync(`${target}.index`, { force: true });
    }
  }

  /** Deletes the mirror and starts an empty one. */
  async recreate(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(path.dirname(this.dir), { recursive: true });
    await this.#git(['init', '--bare', '--quiet', this.dir]);
  }

  async #isUsable(): Promise<boolean> {
    return this.#git(['rev-parse', '--is-bare-repository'], { env: { GIT_DIR: this.dir } }).then(
      (out) => out.trim() === 'true',
      () => false,
    );
  }

  async #hasCommit(sha: string): Promise<boolean> {
    return this.#git(['cat-file', '-e', `${sha}^{commit}`], { env: { GIT_DIR: this.dir } }).then(
      () => true,
      () => false,
    );
  }

  /** Branches and tags, force-updated and pruned: a force-push or a deleted branch is mirrored as is. */
  async #fetch(): Promise<void> {
    await this.#git(
      [
        'fetch',
        '--quiet',
        '--prune',
        '--force',
        '--no-write-fetch-head',
        '--',
        this.#url,
        '+refs/heads/*:refs/heads/*',
        '+refs/tags/*:refs/tags/*',
      ],
      { env: { GIT_DIR: this.dir } },
    );
  }
}

export function parseLsRemote(text: string): RemoteRefs {
  let head: string | undefined;
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [left, name] = line.split('\t');
    if (left === undefined || name === undefined) continue;
    if (left.startsWith('ref: ')) {
      if (name === 'HEAD') head = left.slice('ref: '.length);
    } else if (SHA.test(left)) refs.set(name, left);
  }
  return { head, refs };
}
