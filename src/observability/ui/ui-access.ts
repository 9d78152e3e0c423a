import { createHash } from 'node:crypto';
import { KeptAnswers } from '../../core/kept-answers.ts';
import type { UiSubject } from './ui-session.ts';

/** The part of KubeClient the access check uses: TokenReview and SubjectAccessReview creation. */
export interface AccessApi {
  request(
    method: string,
    apiPath: string,
    options?: { readonly body?: unknown; readonly signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
}

/** What a request may see (docs/ui.md "Who may see what"); 503 when the token could not be checked now. */
export type UiAccess =
  | { readonly allowed: false; readonly status: 401 | 403 | 503; readonly why: string }
  | {
      readonly allowed: true;
      readonly user: string;
      readonly canReadConfig: boolean;
      /** May `get` Secrets in the operator's namespace: values marked `x-kaddon-secret` are shown in clear. */
      readonly canReadSecrets: boolean;
    };

export interface UiAccessOptions {
  /** The status page's own client, never the operator's: a flood of tokens costs the operator nothing (docs/ui.md "Limits"). */
  readonly api: AccessApi;
  /** ADDON_OPERATOR_NAMESPACE and ADDON_OPERATOR_CONFIG_MAP: values and hook output need `get` on it. */
  readonly namespace: string;
  readonly configMap: string;
  /** How long an answer, granted or refused, is kept per token; the page asks many times a minute. */
  readonly cacheMs?: number;
  /** Tokens checked at once; a request with another new token beyond them is answered 503 at once. */
  readonly maxPending?: number;
  /** Aborted when the operator stops: the reviews under way are abandoned. */
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

/** Everyone may see everything: KADDON_UI_AUTH=off, for a port-forward-only installation. */
export const OPEN_ACCESS: UiAccess = {
  allowed: true,
  user: 'anonymous (KADDON_UI_AUTH=off)',
  canReadConfig: true,
  canReadSecrets: true,
};

/** Answers kept of each kind: those of known users are never pushed out by a flood of refused tokens. */
const KEPT_ANSWERS = 1000;
const MAX_PENDING = 16;
/**
 * A token the API server accepted within the last hour is checked again in slots of its own, as
 * many: a flood of unknown tokens does not lock out who was using the page.
 */
const KNOWN_FOR_MS = 3_600_000;

const NO_TOKEN: UiAccess = { allowed: false, status: 401, why: 'a bearer token is required' };
const BUSY: UiAccess = {
  allowed: false,
  status: 503,
  why: 'the status page is checking too many new tokens or users at once: ask again in a few seconds',
};
const UNCHECKED: UiAccess = {
  allowed: false,
  status: 503,
  why: 'the API server did not answer the token review: ask again shortly',
};
const STOPPING: UiAccess = { allowed: false, status: 503, why: 'the operator is stopping' };

/**
 * Checks a bearer token as the API server would: a TokenReview names the user, then
 * SubjectAccessReviews ask whether they may `get` modules.kaddon.dev, the operator's ConfigMap and
 * Secrets in its namespace.
 * Answers are kept briefly per token (by its SHA-256, never the token itself), refusals too; a token
 * asked for again while its review runs waits for that one, and at most `maxPending` reviews of
 * unknown tokens run: beyond them a new token costs a hash and a map look-up, no request.
 */
export function createUiAccessCheck(
  options: UiAccessOptions,
): (token: string | undefined) => Promise<UiAccess> {
  const reviews = keptReviews(options);
  return (token) => {
    if (token === undefined || token === '') return Promise.resolve(NO_TOKEN);
    return reviews(createHash('sha256').update(token).digest('hex'), () => checkToken(options, token));
  };
}

/**
 * Reviews by key (a token's hash, a signed-in user's), kept and bounded as createUiAccessCheck
 * says: answers and refusals kept apart for `cacheMs`, a key under review waits for that review,
 * and at most `maxPending` reviews of keys not accepted within the last hour (as many of those
 * accepted) run at once, 503 beyond. A review that fails says 503, never why.
 */
function keptReviews(
  options: UiAccessOptions,
): (key: string, review: () => Promise<UiAccess>) => Promise<UiAccess> {
  const kept = { ttlMs: options.cacheMs ?? 10_000, limit: KEPT_ANSWERS, now: options.now };
  const users = new KeptAnswers<UiAccess>(kept);
  const refused = new KeptAnswers<UiAccess>(kept);
  const known = new KeptAnswers<true>({ ...kept, ttlMs: KNOWN_FOR_MS });
  const pending = new Map<string, Promise<UiAccess>>();
  const pendingOf = { known: 0, unknown: 0 };
  const maxPending = options.maxPending ?? MAX_PENDING;
  return (key, review) => {
    if (options.signal?.aborted === true) return Promise.resolve(STOPPING);
    const answer = users.get(key) ?? refused.get(key);
    if (answer !== undefined) return Promise.resolve(answer);
    const running = pending.get(key);
    if (running !== undefined) return running;
    const slots = known.get(key) === undefined ? 'unknown' : 'known';
    if (pendingOf[slots] >= maxPending) return Promise.resolve(BUSY);
    pendingOf[slots] += 1;
    const reviewed = review()
      .then(
        (access) => {
          const isRefused = !access.allowed && access.status === 401;
          (isRefused ? refused : users).set(key, access);
          if (isRefused) known.delete(key);
          else known.set(key, true);
          return access;
        },
        // Who asks may have no token worth anything: the API server's address and error stay inside.
        (): UiAccess => (options.signal?.aborted === true ? STOPPING : UNCHECKED),
      )
      .finally(() => {
        pending.delete(key);
        pendingOf[slots] -= 1;
      });
    pending.set(key, reviewed);
    return reviewed;
  };
}

async function checkToken(options: UiAccessOptions, token: string): Promise<UiAccess> {
  const review = await options.api.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    signal: options.signal,
  });
  const status = asRecord(review.status);
  const user = asRecord(status.user);
  if (status.authenticated !== true)
    return { allowed: false, status: 401, why: 'the token was not accepted by the API server' };
  return reviewSubject(options, {
    user: typeof user.username === 'string' ? user.username : '',
    uid: typeof user.uid === 'string' ? user.uid : undefined,
    groups: Array.isArray(user.groups) ? user.groups : [],
    extra: user.extra,
  });
}

/** What one user may see: SubjectAccessReviews of what the page shows (docs/ui.md "Who may see what"). */
async function reviewSubject(
  options: UiAccessOptions,
  subject: {
    readonly user: string;
    readonly groups: readonly unknown[];
    readonly uid?: string;
    readonly extra?: unknown;
  },
): Promise<UiAccess> {
  const may = (attributes: Record<string, string>): Promise<boolean> =>
    isAllowed(options, subject, attributes);
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

/**
 * The access of a signed-in user (ui-sign-in.ts): their name and groups from the provider's ID token
 * are asked about as they are, no TokenReview and no impersonation. Answers are kept and bounded
 * as a token's are (keptReviews), per user and groups.
 */
export function createSubjectAccessCheck(
  options: UiAccessOptions,
): (subject: UiSubject) => Promise<UiAccess> {
  const reviews = keptReviews(options);
  return (subject) => {
    const key = createHash('sha256')
      .update(JSON.stringify([subject.user, subject.groups]))
      .digest('hex');
    return reviews(key, () => reviewSubject(options, subject));
  };
}

async function isAllowed(
  { api, signal }: UiAccessOptions,
  subject: object,
  resourceAttributes: Record<string, string>,
): Promise<boolean> {
  const review = await api.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { ...subject, resourceAttributes },
    },
    signal,
  });
  return asRecord(review.status).allowed === true;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
