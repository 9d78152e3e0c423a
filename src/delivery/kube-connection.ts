import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import { parseYamlDocument } from '../core/yaml.ts';

/** What one request needs to reach and authenticate to the API server. */
export interface KubeRequestOptions {
  readonly ca?: string | Buffer | (string | Buffer)[];
  readonly cert?: string | Buffer | (string | Buffer)[];
  readonly key?: string | Buffer | (string | Buffer)[];
  readonly rejectUnauthorized?: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

/** How to reach the API server; credentials are asked for per request, so rotated tokens are read again. */
export interface KubeConnection {
  readonly server: string;
  requestOptions(): Promise<KubeRequestOptions>;
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
  const config = new KubeConfig();
  const prefix = settings.inClusterRoot ?? '';
  let source: string;
  if (files.length > 0) {
    source = files.join(':');
    loadFiles(config, files);
  } else if (env.KUBERNETES_SERVICE_HOST && existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
    source = 'in-cluster service account';
    config.loadFromCluster(prefix);
  } else {
    throw new KubeConfigError(
      '(none)',
      'no KUBE_CONFIG or KUBECONFIG and not running in a cluster',
      'Set KUBECONFIG (or KUBE_CONFIG) or run kaddon in a Pod with a service account.',
    );
  }
  return connectionOf(config, source, settings);
}

/** A connection to the cluster of one kubeconfig file (tests, and `--kube-config FILE`). */
export function connectionFromKubeconfig(
  file: string,
  settings: KubeConnectionSettings = {},
): KubeConnection {
  return loadKubeConnection({}, { ...settings, kubeconfig: file });
}

function loadFiles(config: KubeConfig, files: readonly string[]): void {
  for (const [index, file] of files.entries()) {
    const next = index === 0 ? config : new KubeConfig();
    try {
      next.loadFromFile(file);
    } catch (error: unknown) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new KubeConfigError(
        file,
        `cannot be read: ${problem}`,
        'Point KUBECONFIG at a kubeconfig file.',
        {
          cause: error,
        },
      );
    }
    useTokenFiles(next, file);
    if (next !== config) mergeFirstWins(config, next);
  }
}

/**
 * client-go's `user.tokenFile`, which client-node does not read: such a user gets client-node's
 * token-file authentication, which reads the file again as it ages (projected tokens rotate).
 */
function useTokenFiles(config: KubeConfig, file: string): void {
  let document: unknown;
  try {
    document = parseYamlDocument(readFileSync(file, 'utf8'), file);
  } catch {
    return;
  }
  const users = isJsonObject(document) && Array.isArray(document.users) ? document.users : [];
  const tokenFiles = new Map<string, string>();
  for (const entry of users) {
    if (!isJsonObject(entry) || !isJsonObject(entry.user) || typeof entry.name !== 'string') continue;
    const tokenFile = entry.user.tokenFile;
    if (typeof tokenFile === 'string')
      tokenFiles.set(entry.name, path.resolve(path.dirname(file), tokenFile));
  }
  if (tokenFiles.size === 0) return;
  config.users = config.users.map((user) => {
    const tokenFile = tokenFiles.get(user.name);
    return tokenFile ? { ...user, authProvider: { name: 'tokenFile', config: { tokenFile } } } : user;
  });
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

function connectionOf(config: KubeConfig, source: string, settings: KubeConnectionSettings): KubeConnection {
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
    requestOptions: async () => {
      const options: {
        headers: Record<string, string>;
        ca?: KubeRequestOptions['ca'];
        cert?: KubeRequestOptions['cert'];
        key?: KubeRequestOptions['key'];
        rejectUnauthorized?: boolean;
        agent?: unknown;
      } = { headers: {} };
      await config.applyToHTTPSOptions(options);
      return {
        headers: options.headers,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(options.cert === undefined ? {} : { cert: options.cert }),
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(options.rejectUnauthorized === undefined
          ? {}
          : { rejectUnauthorized: options.rejectUnauthorized }),
      };
    },
  };
}
