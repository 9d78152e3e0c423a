import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ConnectionConfig } from './connection-config.ts';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import { parseYamlDocument } from '../core/yaml/yaml.ts';

/**
 * How to reach the API server. `config` is @kubernetes/client-node's configuration with kaddon's
 * credential handling: client-node's RequestContext, fetch over undici and Watch use it for every
 * request (src/delivery/kube-client.ts), asking for credentials each time, so rotated tokens and
 * expiring exec credentials are picked up.
 */
export interface KubeConnection {
  readonly server: string;
  readonly config: KubeConfig;
  /**
   * The server answered 401: token files are read again before the next request, as client-go resets
   * its cached token on 401.
   */
  credentialsRejected(): void;
  /** Set when the connection is the in-cluster service account's: where its files are. */
  readonly serviceAccount?: { readonly tokenFile: string; readonly caFile: string };
}

export class KubeConfigError extends KaddonError {
  readonly code = 'kubeconfig-invalid';
  constructor(source: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`kubeconfig '${source}': ${problem}.`, hint, options);
  }
}

/** Which cluster to talk to, as the operator's settings say (the settings table in README.md). */
export interface KubeConnectionSettings {
  /** KUBE_CONFIG or --kube-config: kubeconfig files, colon-separated; else KUBECONFIG. */
  readonly kubeconfig?: string | undefined;
  /** KUBE_CONTEXT: the context to use instead of the current one. */
  readonly context?: string | undefined;
  /** KUBE_SERVER: the API server's URL, over the one the context names. */
  readonly server?: string | undefined;
  /**
   * Prefixed to /var/run/secrets/kubernetes.io/serviceaccount when reading the in-cluster service
   * account (KADDON_IN_CLUSTER_ROOT; tests only).
   */
  readonly inClusterRoot?: string | undefined;
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const SERVICE_ACCOUNT_CA = '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt';

/**
 * The connection as client-go's default loading rules find it, through @kubernetes/client-node's
 * KubeConfig: the kubeconfig files listed (the first file's entries and current context win where
 * files overlap), else the in-cluster service account. Exec and token-file credentials are run or read
 * when a request needs them.
 */
export function loadKubeConnection(
  env: Readonly<Record<string, string | undefined>>,
  settings: KubeConnectionSettings = {},
): KubeConnection {
  const list = settings.kubeconfig ?? env.KUBECONFIG ?? '';
  const files = list.split(':').filter((file) => file !== '');
  const config = new ConnectionConfig();
  const prefix = settings.inClusterRoot ?? '';
  let source: string;
  let serviceAccount: KubeConnection['serviceAccount'];
  if (files.length > 0) {
    source = files.join(':');
    loadFiles(config, files);
  } else if (env.KUBERNETES_SERVICE_HOST && existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
    source = 'in-cluster service account';
    config.loadFromCluster(prefix);
    serviceAccount = {
      tokenFile: `${prefix}${SERVICE_ACCOUNT_TOKEN}`,
      caFile: `${prefix}${SERVICE_ACCOUNT_CA}`,
    };
    config.useTokenFiles(new Map([[config.users[0]?.name ?? '', serviceAccount.tokenFile]]));
  } else {
    throw new KubeConfigError(
      '(none)',
      'no KUBE_CONFIG or KUBECONFIG and not running in a cluster',
      'Set KUBECONFIG (or KUBE_CONFIG) or run kaddon in a Pod with a service account.',
    );
  }
  const connection = connectionOf(config, source, settings);
  return serviceAccount ? { ...connection, serviceAccount } : connection;
}

/** A connection to the cluster of one kubeconfig file (tests, and `--kube-config FILE`). */
export function connectionFromKubeconfig(
  file: string,
  settings: KubeConnectionSettings = {},
): KubeConnection {
  return loadKubeConnection({}, { ...settings, kubeconfig: file });
}

function loadFiles(config: ConnectionConfig, files: readonly string[]): void {
  const tokenFiles = new Map<string, string>();
  for (const [index, file] of files.entries()) {
    const next = index === 0 ? config : new KubeConfig();
    try {
      next.loadFromFile(file);
    } catch (error: unknown) {
      const problem = describeLoadError(error);
      throw new KubeConfigError(
        file,
        `cannot be read: ${problem}`,
        'Check the path: it comes from --kube-config, KUBE_CONFIG or KUBECONFIG (the first set), colon-separated.',
        {
          cause: error,
        },
      );
    }
    for (const [user, tokenFile] of tokenFilesOf(file))
      if (!tokenFiles.has(user)) tokenFiles.set(user, tokenFile);
    if (next !== config) mergeFirstWins(config, next);
  }
  config.useTokenFiles(tokenFiles);
  config.useExecPlugins();
}

/** client-go's `user.tokenFile`, which client-node does not read: the token file of each user that has one. */
function tokenFilesOf(file: string): Map<string, string> {
  const tokenFiles = new Map<string, string>();
  let document: unknown;
  try {
    document = parseYamlDocument(readFileSync(file, 'utf8'), file);
  } catch {
    return tokenFiles;
  }
  const users = isJsonObject(document) && Array.isArray(document.users) ? document.users : [];
  for (const entry of users) {
    if (!isJsonObject(entry) || !isJsonObject(entry.user) || typeof entry.name !== 'string') continue;
    const tokenFile = entry.user.tokenFile;
    if (typeof tokenFile === 'string' && !tokenFiles.has(entry.name))
      tokenFiles.set(entry.name, path.resolve(path.dirname(file), tokenFile));
  }
  return tokenFiles;
}

/** client-go's merge: an entry already named by an earlier file is kept, the earlier current context too. */
function mergeFirstWins(config: KubeConfig, later: KubeConfig): void {
  const add = <T extends { readonly name: string }>(into: T[], from: readonly T[]): T[] => [
    ...into,
    ...from.filter((entry) => !into.some((known) => known.name === entry.name)),
  ];
  config.clusters = add(config.clusters, later.clusters);
  config.users = add(config.users, later.users);
  config.contexts = add(config.contexts, later.contexts);
  if (!config.currentContext) config.currentContext = later.currentContext;
}

function connectionOf(
  config: ConnectionConfig,
  source: string,
  settings: KubeConnectionSettings,
): KubeConnection {
  if (settings.context) {
    if (!config.contexts.some((context) => context.name === settings.context))
      throw new KubeConfigError(
        source,
        `no context named '${settings.context}' (KUBE_CONTEXT)`,
        `Use one of: ${config.contexts.map((context) => context.name).join(', ') || '(none)'}.`,
      );
    config.setCurrentContext(settings.context);
  }
  const context = config.getContextObject(config.currentContext);
  const cluster = config.getCurrentCluster();
  if (!context || !cluster)
    throw new KubeConfigError(
      source,
      `the context '${config.currentContext}' names no cluster`,
      'Check current-context (or KUBE_CONTEXT) and the clusters list.',
    );
  if (!config.getCurrentUser())
    throw new KubeConfigError(
      source,
      `the context '${config.currentContext}' names no user`,
      'Check the users list of the kubeconfig.',
    );
  if (settings.server)
    config.clusters = config.clusters.map((entry) =>
      entry.name === cluster.name ? { ...entry, server: settings.server ?? entry.server } : entry,
    );
  const server = settings.server ?? cluster.server;
  return {
    server,
    config,
    credentialsRejected: () => {
      config.credentialsRejected();
    },
  };
}

/**
 * Why a kubeconfig could not be loaded, without the YAML parser's excerpt of the file: the lines
 * around a syntax error are where its tokens and keys are (docs/lifecycle.md "Bounds and timeouts").
 */
function describeLoadError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { reason, mark } = error as Error & { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (typeof reason === 'string' && typeof mark?.line === 'number' && typeof mark.column === 'number')
    return `${reason} at line ${String(mark.line + 1)}, column ${String(mark.column + 1)}`;
  const first = error.message.split('\n')[0] ?? '';
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}
