import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { cacheDir, fillCacheDir } from '../cluster/cache-dir.ts';
import { onProcessExit } from '../cluster/exit-cleanup.ts';
import { findGo, goEnv, goHint, isExecutable } from '../cluster/go-build.ts';
import { runTool } from '../cluster/run-tool.ts';
import { repoRoot } from '../repo-root.ts';

/** A user of the test provider: signs in with `id` and `password`; the ID token's `sub` is `id`. */
export interface ProviderUser {
  readonly id: string;
  readonly password: string;
  readonly groups: readonly string[];
}

export interface ProviderOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly users: readonly ProviderUser[];
  /** ID tokens name this audience instead of the client: a provider kaddon must refuse. */
  readonly wrongAudience?: string;
  /** Where the users file is written. */
  readonly workDir: string;
}

export interface OidcProvider {
  /** `http://127.0.0.1:PORT/`, as its discovery document says. */
  readonly issuer: string;
  stop(): Promise<void>;
}

const SOURCE = path.join(repoRoot, 'test/oidc/provider');
/** How long the provider may take to listen and say its issuer. */
const SETTLE_MS = 15_000;

/**
 * The test provider (test/oidc/provider: zitadel/oidc's example OpenID Provider, from the Go module
 * proxy), built once per version of its sources into the harness's cache (about 20 s, then none).
 */
async function ensureProviderBinary(): Promise<string> {
  const sources = ['main.go', 'go.mod', 'go.sum'].map((name) => readFileSync(path.join(SOURCE, name)));
  const version = createHash('sha256').update(Buffer.concat(sources)).digest('hex').slice(0, 16);
  const versionDir = cacheDir('oidc-provider', version);
  const target = path.join(versionDir, 'oidc-provider');
  await fillCacheDir(
    versionDir,
    () => isExecutable(target),
    async (staging) => {
      const out = path.join(staging, 'bin');
      await mkdir(out);
      await runTool(
        await findGo(),
        ['build', '-trimpath', '-ldflags=-s -w', '-o', path.join(out, 'oidc-provider'), '.'],
        { cwd: SOURCE, env: goEnv(), step: 'oidc-provider build', hint: goHint, failureCode: 'build-failed' },
      );
      return out;
    },
  );
  return target;
}

/** Starts the provider on a free loopback port; its issuer is read from its first line. */
export async function startOidcProvider(options: ProviderOptions): Promise<OidcProvider> {
  const binary = await ensureProviderBinary();
  const usersFile = path.join(options.workDir, `oidc-users-${String(process.hrtime.bigint())}.json`);
  writeFileSync(
    usersFile,
    JSON.stringify(
      Object.fromEntries(
        options.users.map((user) => [
          user.id,
          {
            ID: user.id,
            Username: user.id,
            Password: user.password,
            FirstName: user.id,
            LastName: 'Test',
            Email: `${user.id}@example.test`,
            EmailVerified: true,
            PreferredLanguage: 'en',
          },
        ]),
      ),
    ),
  );
  const child = spawn(
    existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : binary,
    existsSync('/usr/bin/setpriv') ? ['--pdeathsig', 'KILL', '--', binary] : [],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        CLIENT_ID: options.clientId,
        CLIENT_SECRET: options.clientSecret,
        REDIRECT_URI: options.redirectUri,
        USERS_FILE: usersFile,
        GROUPS: options.users.map((user) => `${user.id}=${user.groups.join(',')}`).join(';'),
        ...(options.wrongAudience === undefined ? {} : { ID_TOKEN_AUDIENCE: options.wrongAudience }),
      },
    },
  );
  const unregister = onProcessExit(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const issuer = await firstLine(child, () => stderr);
  return {
    issuer,
    stop: async () => {
      unregister();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function firstLine(
  child: ChildProcessByStdio<null, Readable, Readable>,
  stderr: () => string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the OIDC provider did not start within 15 s: ${stderr()}`));
    }, SETTLE_MS);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the OIDC provider exited (${String(code)}): ${stderr()}`));
    });
  });
}
