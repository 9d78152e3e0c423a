import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onProcessExit } from '../cluster/exit-cleanup.ts';
import { findFreePort } from '../cluster/free-port.ts';
import { ensureLocalGoBinary } from '../cluster/go-build.ts';
import { startReadyServer } from '../cluster/readiness.ts';
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
/** How long the provider may take to answer its discovery document. */
const READY_TIMEOUT_MS = 15_000;

/**
 * Starts the provider (test/oidc/provider: zitadel/oidc's example OpenID Provider, built once per
 * version of its sources, about 20 s) on a free loopback port, ready once its discovery document
 * answers; its log goes to `workDir`.
 */
export async function startOidcProvider(options: ProviderOptions): Promise<OidcProvider> {
  const binary = await ensureLocalGoBinary('oidc-provider', SOURCE);
  const port = await findFreePort();
  const issuer = `http://127.0.0.1:${String(port)}/`;
  const usersFile = path.join(options.workDir, `oidc-users-${String(port)}.json`);
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
  const server = await startReadyServer(
    {
      name: 'oidc-provider',
      binary,
      args: [],
      logFile: path.join(options.workDir, `oidc-provider-${String(port)}.log`),
      detached: false,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        CLIENT_ID: options.clientId,
        CLIENT_SECRET: options.clientSecret,
        REDIRECT_URI: options.redirectUri,
        USERS_FILE: usersFile,
        GROUPS: options.users.map((user) => `${user.id}=${user.groups.join(',')}`).join(';'),
        ...(options.wrongAudience === undefined ? {} : { ID_TOKEN_AUDIENCE: options.wrongAudience }),
      },
    },
    async () => (await fetch(`${issuer}.well-known/openid-configuration`)).ok,
    READY_TIMEOUT_MS,
  );
  const unregister = onProcessExit(() => {
    server.killNow();
  });
  return {
    issuer,
    stop: async () => {
      unregister();
      await server.stop();
    },
  };
}
