import { createHash } from 'node:crypto';

/** The part of KubeClient the access check uses: TokenReview and SubjectAccessReview creation. */
export interface AccessApi {
  request(
    method: string,
    apiPath: string,
    options?: { readonly body?: unknown },
  ): Promise<Record<string, unknown>>;
}

/** What a request may see (docs/ui.md "Who may see what"). */
export type UiAccess =
  | { readonly allowed: false; readonly status: 401 | 403; readonly why: string }
  | {
      readonly allowed: true;
      readonly user: string;
      readonly canReadConfig: boolean;
      /** May `get` Secrets in the operator's namespace: values marked `x-kaddon-secret` are shown in clear. */
      readonly canReadSecrets: boolean;
    };

export interface UiAccessOptions {
  readonly api: AccessApi;
  /** ADDON_OPERATOR_NAMESPACE and ADDON_OPERATOR_CONFIG_MAP: values and hook output need `get` on it. */
  readonly namespace: string;
  readonly configMap: string;
  /** How long an answer is kept per token; the page asks many times a minute. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/** Everyone may see everything: KADDON_UI_AUTH=off, for a port-forward-only installation. */
export const OPEN_ACCESS: UiAccess = {
  allowed: true,
  user: 'anonymous (KADDON_UI_AUTH=off)',
  canReadConfig: true,
  canReadSecrets: true,
};

const CACHE_LIMIT = 1000;

/**
 * Checks a bearer token as the API server would: a TokenReview names the user, then
 * SubjectAccessReviews ask whether they may `get` modules.kaddon.dev, the operator's ConfigMap and
 * Secrets in its namespace.
 * Answers are kept briefly per token (by its SHA-256, never the token itself).
 */
export function createUiAccessCheck(
  options: UiAccessOptions,
): (token: string | undefined) => Promise<UiAccess> {
  const cacheMs = options.cacheMs ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { readonly at: number; readonly access: Promise<UiAccess> }>();
  return (token) => {
    if (token === undefined || token === '')
      return Promise.resolve({ allowed: false, status: 401, why: 'a bearer token is required' });
    const key = createHash('sha256').update(token).digest('hex');
    const kept = cache.get(key);
    if (kept !== undefined && now() - kept.at < cacheMs) return kept.access;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    const access = checkToken(options, token);
    cache.set(key, { at: now(), access });
    access.catch(() => cache.delete(key));
    return access;
  };
}

async function checkToken(options: UiAccessOptions, token: string): Promise<UiAccess> {
  const review = await options.api.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  const status = asRecord(review.status);
  const user = asRecord(status.user);
  if (status.authenticated !== true)
    return { allowed: false, status: 401, why: 'the token was not accepted by the API server' };
  const subject = {
    user: typeof user.username === 'string' ? user.username : '',
    uid: typeof user.uid === 'string' ? user.uid : undefined,
    groups: Array.isArray(user.groups) ? user.groups : [],
    extra: user.extra,
  };
  const may = (attributes: Record<string, string>): Promise<boolean> =>
    isAllowed(options.api, subject, attributes);
  const [modules, configMap, secrets] = await Promise.all([
    may({ verb: 'get', group: 'kaddon.dev', resource: 'modules' }),
    may({
      verb: 'get',
      group: '',
      resource: 'configmaps',
      namespace: options.namespace,
      name: options.configMap,
    }),
    may({ verb: 'get', group: '', resource: 'secrets', namespace: options.namespace }),
  ]);
  if (!modules) return { allowed: false, status: 403, why: `${subject.user} may not get modules.kaddon.dev` };
  return { allowed: true, user: subject.user, canReadConfig: configMap, canReadSecrets: secrets };
}

async function isAllowed(
  api: AccessApi,
  subject: Record<string, unknown>,
  resourceAttributes: Record<string, string>,
): Promise<boolean> {
  const review = await api.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { ...subject, resourceAttributes },
    },
  });
  return asRecord(review.status).allowed === true;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
