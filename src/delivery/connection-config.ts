import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import { isJsonObject } from '../core/json.ts';
import { ExecCredentialSource, type ExecConfig } from './exec-credential.ts';
import { TokenFile } from './token-file.ts';

interface HttpsOptions {
  headers: Record<string, string>;
  ca?: string | Buffer | (string | Buffer)[];
  cert?: string | Buffer | (string | Buffer)[];
  key?: string | Buffer | (string | Buffer)[];
  pfx?: unknown;
  passphrase?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/**
 * @kubernetes/client-node's KubeConfig with two changes to how a request is authenticated:
 * - token files (the in-cluster service account's, a kubeconfig user's `tokenFile`) are read by
 *   TokenFile, per user, again as soon as the file changes and after a 401 — client-node's own
 *   token-file reader is one per process and rereads only once a minute;
 * - one undici dispatcher per TLS identity, kept, so requests reuse connections — client-node makes a
 *   new connection pool for every request.
 * - exec plugins are run by ExecCredentialSource, with a time limit, bounded output and errors that
 *   never quote what the plugin printed; client-node's runner is taken off the users.
 * Everything else (client certificates, proxies, basic auth) is client-node's.
 */
export class ConnectionConfig extends KubeConfig {
  readonly #tokenFiles = new Map<string, TokenFile>();
  readonly #execSources = new Map<string, ExecCredentialSource>();
  readonly #dispatchers = new Map<string, Dispatcher | undefined>();

  /**
   * Every user with an `exec` section (or an `exec` auth provider) gets its credential from an
   * ExecCredentialSource: a custom authenticator of client-node, which asks it whenever a request
   * (or a Watch) is authenticated.
   */
  useExecPlugins(): void {
    this.users = this.users.map((user) => {
      const exec = execConfigOf(user);
      if (exec === undefined) return user;
      this.#execSources.set(user.name, new ExecCredentialSource(user.name, exec));
      const provider: unknown = user.authProvider;
      const viaProvider =
        isJsonObject(provider) && isJsonObject(provider.config) && 'exec' in provider.config;
      return { ...user, exec: undefined, ...(viaProvider ? { authProvider: undefined } : {}) };
    });
    const sources = this.#execSources;
    this.addAuthenticator({
      isAuthProvider: (user) => sources.has(user.name),
      async applyAuthentication(user, opts) {
        const credential = await sources.get(user.name)?.credential();
        const target = opts as HttpsOptions;
        if (credential?.token !== undefined)
          target.headers = { ...target.headers, Authorization: `Bearer ${credential.token}` };
        if (credential?.clientCertificateData !== undefined) target.cert = credential.clientCertificateData;
        if (credential?.clientKeyData !== undefined) target.key = credential.clientKeyData;
      },
    });
  }

  /** Users whose bearer token is read from a file, by user name. */
  useTokenFiles(files: ReadonlyMap<string, string>): void {
    for (const [user, file] of files) this.#tokenFiles.set(user, new TokenFile(file));
    // The in-cluster user comes with client-node's own token-file provider, replaced by TokenFile.
    this.users = this.users.map((user) => {
      const provider: unknown = user.authProvider;
      const ownReader = isJsonObject(provider) && provider.name === 'tokenFile';
      return files.has(user.name) && ownReader ? { ...user, authProvider: undefined } : user;
    });
  }

  /** The server refused the credentials: token files are read again. */
  credentialsRejected(): void {
    for (const file of this.#tokenFiles.values()) file.forget();
    for (const source of this.#execSources.values()) source.forget();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const user = this.getCurrentUser();
    const tokenFile = user ? this.#tokenFiles.get(user.name) : undefined;
    if (this.getCurrentCluster()?.proxyUrl?.startsWith('socks')) {
      // client-node builds SOCKS connections itself; only the token is kaddon's.
      await super.applySecurityAuthentication(context);
      if (tokenFile) context.setHeaderParam('Authorization', `Bearer ${tokenFile.token()}`);
      return;
    }
    const options: HttpsOptions = { headers: {} };
    await this.applyToHTTPSOptions(options);
    if (user?.username)
      options.headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    if (tokenFile) options.headers.Authorization = `Bearer ${tokenFile.token()}`;
    for (const [name, value] of Object.entries(options.headers)) context.setHeaderParam(name, value);
    const dispatcher = this.#dispatcher(options);
    if (dispatcher) context.setDispatcher(dispatcher);
  }

  #dispatcher(options: HttpsOptions): Dispatcher | undefined {
    const tls = {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.cert === undefined ? {} : { cert: options.cert }),
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(options.pfx === undefined ? {} : { pfx: options.pfx }),
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
      ...(options.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: options.rejectUnauthorized }),
      ...(options.servername === undefined ? {} : { servername: options.servername }),
    };
    const cluster = this.getCurrentCluster();
    const key = identityKey(cluster?.proxyUrl ?? '', tls);
    if (this.#dispatchers.has(key)) return this.#dispatchers.get(key);
    const plan = this.createDispatcherOptions(
      cluster,
      tls as Parameters<KubeConfig['createDispatcherOptions']>[1],
    );
    let dispatcher: Dispatcher | undefined;
    if (plan.type === 'agent') dispatcher = new Agent({ connect: plan.connect });
    else if (plan.type === 'proxy')
      dispatcher = new ProxyAgent({ uri: plan.uri, requestTls: plan.requestTls, connect: plan.connect });
    this.#dispatchers.set(key, dispatcher);
    return dispatcher;
  }
}

function identityKey(proxy: string, tls: Record<string, unknown>): string {
  const hash = createHash('sha256').update(proxy);
  for (const [name, value] of Object.entries(tls)) {
    hash.update(`\0${name}\0`);
    for (const part of [value].flat()) hash.update(Buffer.isBuffer(part) ? part : String(part));
  }
  return hash.digest('hex');
}

/** client-go's `user.exec`, or the exec of an auth provider as client-node reads it. */
function execConfigOf(user: { exec?: unknown; authProvider?: unknown }): ExecConfig | undefined {
  const provider = user.authProvider;
  const candidate =
    user.exec ?? (isJsonObject(provider) && isJsonObject(provider.config) ? provider.config.exec : undefined);
  if (!isJsonObject(candidate)) return undefined;
  const args = Array.isArray(candidate.args) ? candidate.args.filter((arg) => typeof arg === 'string') : [];
  const env = Array.isArray(candidate.env)
    ? candidate.env
        .filter(isJsonObject)
        .flatMap((entry) =>
          typeof entry.name === 'string' && typeof entry.value === 'string'
            ? [{ name: entry.name, value: entry.value }]
            : [],
        )
    : [];
  return {
    command: typeof candidate.command === 'string' ? candidate.command : '',
    args,
    env,
    ...(typeof candidate.apiVersion === 'string' ? { apiVersion: candidate.apiVersion } : {}),
  };
}
