import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { orphanWatchdog } from '../processes/orphan-watchdog.ts';
import { writeSupervisedLauncher } from '../processes/supervised-launcher.ts';
import type { GitCredentials } from './git-source-config.ts';
import { basicAuthForms } from './redact-secrets.ts';

/** What every git process of a source runs with, and the secrets to keep out of any output. */
export interface GitEnvironment {
  /**
   * What simple-git runs as git: simple-git starts it in kaddon's process group, so a launcher
   * ends git and its helpers (git-remote-https, ssh) when kaddon dies (docs/lifecycle.md "Bounds
   * and timeouts"); or `git`.
   */
  readonly binary: string;
  readonly env: Readonly<Record<string, string>>;
  readonly allowAskPass: boolean;
  readonly allowSshCommand: boolean;
  readonly secrets: readonly string[];
}

/** Git asks this script for the user and the password; the secret is read from its file, never put in argv or env. */
const ASKPASS_SCRIPT = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "$KADDON_GIT_USERNAME" ;;
  *) cat "$KADDON_GIT_PASSWORD_FILE" ;;
esac
`;

/** The user sent with a token when none is configured (GitHub's; GitLab and Gitea accept any). */
const TOKEN_USERNAME = 'x-access-token';

/**
 * The environment for git: nothing inherited but PATH and HOME (simple-git strips GIT_* variables
 * it is not told about, and an inherited GIT_DIR would point git elsewhere), no terminal prompt,
 * an askpass script for HTTPS credentials and an ssh command for a key and known_hosts.
 */
export function createGitEnvironment(credentials: GitCredentials, cacheDir: string): GitEnvironment {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? cacheDir,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  };
  const secrets: string[] = [];
  const passwordFile = credentials.passwordFile ?? credentials.tokenFile;
  if (passwordFile !== undefined) {
    const username = credentials.username ?? TOKEN_USERNAME;
    env.GIT_ASKPASS = writeAskPass(cacheDir);
    env.KADDON_GIT_USERNAME = username;
    env.KADDON_GIT_PASSWORD_FILE = passwordFile;
    const password = readSecret(passwordFile);
    secrets.push(password, ...basicAuthForms(username, password));
  }
  if (credentials.sshKeyFile !== undefined || credentials.knownHostsFile !== undefined)
    env.GIT_SSH_COMMAND = sshCommand(credentials);
  const launcher = writeSupervisedLauncher(cacheDir, 'git');
  // simple-git refuses a binary path with characters outside its safe set: plain git then.
  const supervised = /^[a-z0-9/._~-]+$/i.test(launcher.file);
  if (!supervised && launcher.file !== 'git')
    orphanWatchdog.notifyOnce(
      `the Git cache directory '${cacheDir}' has characters simple-git refuses in a binary's path: git runs without its launcher and is not ended if kaddon is SIGKILLed`,
    );
  return {
    binary: supervised ? launcher.file : 'git',
    env: supervised ? { ...env, ...launcher.env } : env,
    allowAskPass: env.GIT_ASKPASS !== undefined,
    allowSshCommand: env.GIT_SSH_COMMAND !== undefined,
    secrets,
  };
}

/** `ssh` with only the configured key, and strict host checking against the configured known_hosts. */
export function sshCommand(credentials: GitCredentials): string {
  const parts = ['ssh', '-o', 'BatchMode=yes'];
  if (credentials.sshKeyFile !== undefined)
    parts.push('-i', shellQuote(credentials.sshKeyFile), '-o', 'IdentitiesOnly=yes');
  if (credentials.knownHostsFile !== undefined)
    parts.push(
      '-o',
      shellQuote(`UserKnownHostsFile=${credentials.knownHostsFile}`),
      '-o',
      'StrictHostKeyChecking=yes',
    );
  return parts.join(' ');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function writeAskPass(cacheDir: string): string {
  mkdirSync(cacheDir, { recursive: true });
  const file = path.join(cacheDir, 'askpass.sh');
  writeFileSync(file, ASKPASS_SCRIPT);
  chmodSync(file, 0o700);
  return file;
}

function readSecret(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
