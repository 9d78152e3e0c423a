import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A working repository pushing to a bare `origin.git`, both in one scratch folder. */
export interface GitFixture {
  readonly root: string;
  /** The folder holding origin.git: a git daemon's or http-backend's base path. */
  readonly serverRoot: string;
  readonly fileUrl: string;
  write(files: Readonly<Record<string, string>>): void;
  delete(...files: string[]): void;
  symlink(file: string, target: string): void;
  /** Commits everything and pushes the branch (forced with `force`); returns the commit. */
  commit(message: string, options?: { force?: boolean }): string;
  git(...args: string[]): string;
  /** Runs git in origin.git. */
  originGit(...args: string[]): string;
  remove(): void;
}

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/** Two modules: app's ConfigMap takes $(app.greeting); extra adds its own ConfigMap. */
export const MODULES = {
  'modules/values.yaml': 'global: {}\nappEnabled: true\nextraEnabled: true\n',
  'modules/010-app/kustomization.yaml': 'resources: [configmap.yaml]\n',
  'modules/010-app/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n  greeting: $(app.greeting)\n',
  'modules/010-app/values.yaml': 'app:\n  greeting: hello\n',
  'modules/020-extra/kustomization.yaml': 'resources: [configmap.yaml]\n',
  'modules/020-extra/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {x: "1"}\n',
  'README.md': 'modules for tests\n',
} as const;

export function makeGitFixture(prefix: string): GitFixture {
  const root = mkdtempSync(path.join(tmpdir(), `kaddon-${prefix}-`));
  const work = path.join(root, 'work');
  const serverRoot = path.join(root, 'server');
  const origin = path.join(serverRoot, 'origin.git');
  const run = (cwd: string, args: string[]): string =>
    execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  mkdirSync(serverRoot, { recursive: true });
  run(root, ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  run(root, ['init', '--quiet', '--initial-branch=main', work]);
  run(work, ['remote', 'add', 'origin', origin]);
  return {
    root,
    serverRoot,
    fileUrl: pathToFileURL(origin).href,
    write(files) {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        writeFileSync(path.join(work, file), text);
      }
    },
    delete(...files) {
      for (const file of files) rmSync(path.join(work, file), { recursive: true, force: true });
    },
    symlink(file, target) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      symlinkSync(target, path.join(work, file));
    },
    commit(message, options = {}) {
      run(work, ['add', '--all']);
      run(work, ['commit', '--quiet', '--allow-empty', '-m', message]);
      run(work, ['push', '--quiet', ...(options.force ? ['--force'] : []), 'origin', 'HEAD:main']);
      return run(work, ['rev-parse', 'HEAD']);
    },
    git: (...args) => run(work, args),
    originGit: (...args) => run(origin, args),
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns something other than undefined (the source works in the background). */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
