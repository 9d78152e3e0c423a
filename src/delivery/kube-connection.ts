import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { parseYamlDocument } from '../core/yaml.ts';

/** How to reach and authenticate to a Kubernetes API server. */
export interface KubeConnection {
  readonly server: string;
  readonly caPem?: string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  readonly token?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

export class KubeConfigError extends KaddonError {
  readonly code = 'kubeconfig-invalid';
  constructor(source: string, problem: string, hint: string) {
    super(`kubeconfig '${source}': ${problem}.`, hint);
  }
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The connection the operator uses: KUBECONFIG (or the file given), else the in-cluster service
 * account, as client-go's default loading rules do.
 */
export function loadKubeConnection(env: NodeJS.ProcessEnv, kubeconfigPath?: string): KubeConnection {
  const file = kubeconfigPath ?? env.KUBECONFIG?.split(':')[0];
  if (file) return connectionFromKubeconfig(file);
  if (env.KUBERNETES_SERVICE_HOST && existsSync(path.join(SERVICE_ACCOUNT_DIR, 'token'))) {
    const host = env.KUBERNETES_SERVICE_HOST.includes(':')
      ? `[${env.KUBERNETES_SERVICE_HOST}]`
      : env.KUBERNETES_SERVICE_HOST;
    return {
      server: `https://${host}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`,
      caPem: readFileSync(path.join(SERVICE_ACCOUNT_DIR, 'ca.crt'), 'utf8'),
      token: readFileSync(path.join(SERVICE_ACCOUNT_DIR, 'token'), 'utf8').trim(),
    };
  }
  throw new KubeConfigError(
    '(none)',
    'no KUBECONFIG and not running in a cluster',
    'Set KUBECONFIG or run kaddon in a Pod with a service account.',
  );
}

/** The current context of a kubeconfig file: server, CA and client certificate or token. */
export function connectionFromKubeconfig(file: string): KubeConnection {
  const doc = parseYamlDocument(readFileSync(file, 'utf8'), file);
  if (!isJsonObject(doc))
    throw new KubeConfigError(file, 'not a kubeconfig', 'Point KUBECONFIG at a kubeconfig file.');
  const contextName = stringAt(doc, 'current-context');
  const context = named(doc, 'contexts', contextName, file, 'context');
  const cluster = named(doc, 'clusters', stringAt(context, 'cluster'), file, 'cluster');
  const user = named(doc, 'users', stringAt(context, 'user'), file, 'user');
  const dir = path.dirname(file);
  const server = stringAt(cluster, 'server');
  if (!server)
    throw new KubeConfigError(
      file,
      `cluster '${stringAt(context, 'cluster')}' has no server`,
      'Add clusters[].cluster.server.',
    );
  const pem = (map: JsonObject, dataKey: string, fileKey: string): string | undefined => {
    const data = stringAt(map, dataKey);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const ref = stringAt(map, fileKey);
    return ref ? readFileSync(path.resolve(dir, ref), 'utf8') : undefined;
  };
  const token = stringAt(user, 'token') || undefined;
  return {
    server,
    ...optional('caPem', pem(cluster, 'certificate-authority-data', 'certificate-authority')),
    ...optional('clientCertPem', pem(user, 'client-certificate-data', 'client-certificate')),
    ...optional('clientKeyPem', pem(user, 'client-key-data', 'client-key')),
    ...optional('token', token),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTlsVerify: true } : {}),
  };
}

function named(doc: JsonObject, list: string, name: string, file: string, what: string): JsonObject {
  const entries = Array.isArray(doc[list]) ? doc[list] : [];
  const entry = entries.find((item) => isJsonObject(item) && item.name === name);
  const inner = isJsonObject(entry) ? entry[what] : undefined;
  if (!isJsonObject(inner)) {
    throw new KubeConfigError(
      file,
      `no ${what} named '${name}'`,
      `Check current-context and the ${list} list.`,
    );
  }
  return inner;
}

function stringAt(map: JsonObject, key: string): string {
  const value = map[key];
  return typeof value === 'string' ? value : '';
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
