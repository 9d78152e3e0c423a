import { SETTINGS } from '../core/setting-names.ts';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isTooLongForTimer, parseGoDuration, TOO_LONG_HINT, tooLongProblem } from '../core/go-duration.ts';
import { GitSourceError } from './git-source-error.ts';
import { redactUrlUserInfo } from './redact-secrets.ts';

/** How git authenticates; files are read at each use, so a rotated secret is picked up. */
export interface GitCredentials {
  /** HTTPS basic auth user (with passwordFile), or the user sent with a token (default `x-access-token`). */
  readonly username: string | undefined;
  readonly passwordFile: string | undefined;
  readonly tokenFile: string | undefined;
  readonly sshKeyFile: string | undefined;
  readonly knownHostsFile: string | undefined;
}

export interface GitSourceConfig {
  readonly url: string;
  /** A branch, a tag or a commit; undefined is the remote's default branch. */
  readonly ref: string | undefined;
  /** The modules tree inside the repository; '' is the repository root. */
  readonly subpath: string;
  readonly pollIntervalMs: number;
  /** The mirror, the revisions and the `current` link live here. */
  readonly cacheDir: string;
  readonly credentials: GitCredentials;
}

type Source = Readonly<Record<string, string | undefined>>;

/** Each setting of the Git source in the one settings table (core/setting-names.ts). */
export const GIT_SOURCE_SETTINGS = {
  url: SETTINGS.modulesGitUrl,
  ref: SETTINGS.modulesGitRef,
  subpath: SETTINGS.modulesGitSubpath,
  pollInterval: SETTINGS.modulesGitPollInterval,
  cacheDir: SETTINGS.modulesGitCacheDir,
  username: SETTINGS.modulesGitUsername,
  passwordFile: SETTINGS.modulesGitPasswordFile,
  tokenFile: SETTINGS.modulesGitTokenFile,
  sshKeyFile: SETTINGS.modulesGitSshKeyFile,
  knownHostsFile: SETTINGS.modulesGitKnownHostsFile,
} as const;

type Setting = keyof typeof GIT_SOURCE_SETTINGS;

const DEFAULT_POLL_INTERVAL_MS = 60_000;

/** Whether a Git source is configured at all (the flag or MODULES_GIT_URL). */
export function hasGitSource(env: Source, flags: Source): boolean {
  const {
    flag,
    env: [variable],
  } = SETTINGS.modulesGitUrl;
  return (flags[flag] ?? env[variable] ?? '') !== '';
}

/** Flags first, then the environment; checked once, errors name the flag and the variable. */
export function loadGitSourceConfig(env: Source, flags: Source = {}): GitSourceConfig {
  const get = (setting: Setting): string | undefined => {
    const {
      flag,
      env: [variable],
    } = GIT_SOURCE_SETTINGS[setting];
    const value = flags[flag] ?? env[variable];
    return value === '' ? undefined : value;
  };
  const url = get('url');
  if (url === undefined)
    throw configError('url', 'is not set', 'Set it to the URL of the modules repository.');
  checkGitUrl(url);
  const credentials: GitCredentials = {
    username: get('username'),
    passwordFile: existingFile('passwordFile', get('passwordFile')),
    tokenFile: existingFile('tokenFile', get('tokenFile')),
    sshKeyFile: existingFile('sshKeyFile', get('sshKeyFile')),
    knownHostsFile: existingFile('knownHostsFile', get('knownHostsFile')),
  };
  if (credentials.passwordFile !== undefined && credentials.tokenFile !== undefined)
    throw configError(
      'tokenFile',
      'is set together with a password file',
      'Use a token or a password, not both.',
    );
  if (credentials.passwordFile !== undefined && credentials.username === undefined)
    throw configError('username', 'is not set, but a password file is', 'Set the user name for basic auth.');
  return {
    url,
    ref: get('ref'),
    subpath: checkSubpath(get('subpath') ?? ''),
    pollIntervalMs: pollInterval(get('pollInterval')),
    cacheDir: path.resolve(get('cacheDir') ?? path.join(tmpdir(), 'kaddon-modules-git')),
    credentials,
  };
}

/** `git@host:path` (scp-like ssh), where the part before `:` is a user and host, not a path. */
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/;
const SCHEMES = ['https://', 'http://', 'ssh://', 'git://', 'file://'];

/**
 * The URL must be one of the forms the README lists, so that nothing else reaches git: not an option
 * (`--upload-pack=…`), not a `transport::address` helper such as `ext::`, no whitespace or control
 * characters. git is also always given `--` before it.
 */
function checkGitUrl(url: string): void {
  const hint = `Use one of: ${SCHEMES.map((scheme) => `${scheme}…`).join(', ')} or user@host:path.`;
  if (url.startsWith('-')) throw configError('url', `'${url}' looks like a git option`, hint);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\s\u0000-\u001f\u007f]/.test(url))
    throw configError(
      'url',
      `'${JSON.stringify(url).slice(1, -1)}' holds whitespace or control characters`,
      hint,
    );
  if (!SCHEMES.some((scheme) => url.startsWith(scheme)) && !SCP_LIKE.test(url))
    throw configError('url', `'${url}' is not a repository URL kaddon reads`, hint);
}

function checkSubpath(subpath: string): string {
  const normal = path.posix.normalize(subpath.replace(/^\.\/+/, '')).replace(/\/+$/, '');
  if (path.posix.isAbsolute(normal) || normal === '..' || normal.startsWith('../'))
    throw configError(
      'subpath',
      `'${subpath}' leaves the repository`,
      'Name a folder inside the repository, e.g. modules.',
    );
  return normal === '.' ? '' : normal;
}

function pollInterval(text: string | undefined): number {
  if (text === undefined) return DEFAULT_POLL_INTERVAL_MS;
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0)
    throw configError('pollInterval', `'${text}' is not a positive duration`, 'Write it like 30s, 5m or 1h.');
  if (isTooLongForTimer(ms)) throw configError('pollInterval', tooLongProblem(text), TOO_LONG_HINT);
  return ms;
}

function existingFile(setting: Setting, file: string | undefined): string | undefined {
  if (file !== undefined && !existsSync(file))
    throw configError(
      setting,
      `the file '${file}' does not exist`,
      'Mount the secret there or correct the path.',
    );
  return file === undefined ? undefined : path.resolve(file);
}

function configError(setting: Setting, problem: string, hint: string): GitSourceError {
  const {
    flag,
    env: [variable],
  } = GIT_SOURCE_SETTINGS[setting];
  return new GitSourceError(
    'config-invalid',
    `setting '--${flag}' / '${variable}'`,
    redactUrlUserInfo(problem),
    hint,
  );
}
