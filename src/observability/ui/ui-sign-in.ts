import type { IncomingMessage, ServerResponse } from 'node:http';
import * as oidc from 'openid-client';
import type { Logger } from '../logger.ts';
import { parseRequestTarget } from '../request-target.ts';
import { cookieValue, type SessionCheck, type UiSessions, type UiSubject } from './ui-session.ts';

/** KADDON_UI_OIDC_*: sign-in to the status page through an OpenID Connect provider (docs/ui.md "Signing in"). */
export interface UiSignInOptions {
  readonly issuer: URL;
  readonly clientId: string;
  /** Read at each sign-in, so a rotated Secret is picked up; undefined: a public client (PKCE alone). */
  readonly clientSecret: () => string | undefined;
  /** Where the provider sends the browser back: the page's own `/ui/auth/callback` as users reach it. */
  readonly redirectUrl: URL;
  readonly scopes: string;
  readonly usernameClaim: string;
  readonly groupsClaim: string;
  readonly usernamePrefix: string;
  readonly groupsPrefix: string;
  readonly sessions: UiSessions;
  readonly logger?: Logger | undefined;
  /** Seconds each request to the provider may take. */
  readonly timeoutSeconds?: number;
}

export interface UiSignIn {
  /** Answers everything under /ui/auth/. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The request's session, from its cookie. */
  session(request: IncomingMessage): SessionCheck;
}

export const SIGN_IN_PATH = '/ui/auth/login';
export const CALLBACK_PATH = '/ui/auth/callback';
const LOGOUT_PATH = '/ui/auth/logout';
const SESSION_COOKIE = 'kaddon-ui-session';
const FLOW_COOKIE = 'kaddon-ui-signin';
/** How long a browser may take at the provider between leaving the page and coming back. */
const FLOW_TTL_SECONDS = 600;
/**
 * Code exchanges with the provider at once. Anyone may start a sign-in and come back with a made-up
 * code, each one a request to the provider: beyond these a callback is answered 503 at once.
 */
const MAX_EXCHANGES = 16;

/** What a refused sign-in tells the browser: plain text, never the provider's tokens. */
class SignInRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * OpenID Connect sign-in with the authorization code flow and PKCE (openid-client): `/ui/auth/login`
 * sends the browser to the provider with a fresh state, nonce and code verifier kept in a short
 * signed cookie; `/ui/auth/callback` exchanges the code, checks the ID token (issuer, audience,
 * expiry, nonce) and sets the session cookie with the user and groups of its claims; POST
 * `/ui/auth/logout` ends the session. The provider's metadata is read at the first sign-in and kept;
 * a provider that did not answer is asked again at the next.
 */
export function createUiSignIn(options: UiSignInOptions): UiSignIn {
  const secure = options.redirectUrl.protocol === 'https:';
  let configuration: Promise<oidc.Configuration> | undefined;
  const configured = (): Promise<oidc.Configuration> => {
    if (configuration !== undefined) return configuration;
    const secret = options.clientSecret();
    const pending = oidc.discovery(
      options.issuer,
      options.clientId,
      undefined,
      secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret),
      {
        timeout: options.timeoutSeconds ?? 10,
        // The ID token's signature is checked against the provider's keys (jwks_uri) as well as
        // its claims, though it comes straight from the token endpoint. Plain http only for a
        // provider on this machine (a test's): the setting refuses it elsewhere.
        execute: [
          oidc.enableNonRepudiationChecks,
          // eslint-disable-next-line @typescript-eslint/no-deprecated -- marked so only to stand out; it is what such a provider needs
          ...(options.issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
        ],
      },
    );
    configuration = pending;
    pending.catch(() => {
      if (configuration === pending) configuration = undefined;
    });
    return pending;
  };

  const login = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const config = await configured().catch((error: unknown) => {
      throw new SignInRefused(
        502,
        `the identity provider ${options.issuer.href} could not be used: ${errorText(error)}`,
      );
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const flow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier,
      back: returnPath(parseRequestTarget(request.url)?.searchParams.get('return')),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: options.redirectUrl.href,
      scope: options.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    response.writeHead(302, {
      location: url.href,
      'cache-control': 'no-store',
      'set-cookie': cookie(FLOW_COOKIE, options.sessions.seal(flow, FLOW_TTL_SECONDS * 1000), {
        path: '/ui/auth',
        maxAge: FLOW_TTL_SECONDS,
        sameSite: 'Lax',
        secure,
      }),
    });
    response.end();
  };

  let exchanging = 0;
  const callback = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const flow = asFlow(options.sessions.open(cookieValue(request.headers.cookie, FLOW_COOKIE)));
    if (flow === undefined)
      throw new SignInRefused(
        400,
        'this sign-in was not started here or took longer than 10 minutes: start again from the page',
      );
    if (exchanging >= MAX_EXCHANGES)
      throw new SignInRefused(503, 'too many sign-ins at once: go back to the page and sign in again');
    exchanging += 1;
    try {
      await exchange(request, response, flow);
    } finally {
      exchanging -= 1;
    }
  };

  const exchange = async (request: IncomingMessage, response: ServerResponse, flow: Flow): Promise<void> => {
    const config = await configured();
    const current = new URL(options.redirectUrl.href);
    current.search = parseRequestTarget(request.url)?.search ?? '';
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
    } catch (error: unknown) {
      options.logger?.warn('status page sign-in refused', { error: errorText(error) });
      throw new SignInRefused(401, `sign-in refused: ${errorText(error)}`);
    }
    const subject = subjectOf(claims, options);
    const issued = options.sessions.issue(subject);
    if (issued === undefined)
      throw new SignInRefused(
        400,
        `sign-in refused: ${subject.user}'s ${String(subject.groups.length)} groups do not fit in a cookie; ` +
          `ask the provider for fewer groups (KADDON_UI_OIDC_GROUPS_CLAIM names the claim)`,
      );
    options.logger?.info('status page sign-in', { user: subject.user, groups: subject.groups.length });
    response.writeHead(303, {
      location: flow.back,
      'cache-control': 'no-store',
      'set-cookie': [
        cookie(SESSION_COOKIE, issued.value, {
          path: '/ui',
          maxAge: Math.floor(options.sessions.ttlMs / 1000),
          sameSite: 'Strict',
          secure,
        }),
        cookie(FLOW_COOKIE, '', { path: '/ui/auth', maxAge: 0, sameSite: 'Lax', secure }),
      ],
    });
    response.end();
  };

  const logout = (request: IncomingMessage, response: ServerResponse): void => {
    if (!isSameOrigin(request)) throw new SignInRefused(403, 'sign out from the status page itself');
    const now = options.sessions.check(cookieValue(request.headers.cookie, SESSION_COOKIE));
    if (now.state === 'valid') options.sessions.end(now.session);
    response.writeHead(204, {
      'cache-control': 'no-store',
      'set-cookie': cookie(SESSION_COOKIE, '', { path: '/ui', maxAge: 0, sameSite: 'Strict', secure }),
    });
    response.end();
  };

  return {
    handle: async (request, response) => {
      const pathname = parseRequestTarget(request.url)?.pathname;
      const method = request.method ?? 'GET';
      try {
        if (pathname === LOGOUT_PATH) {
          if (method !== 'POST') throw new SignInRefused(405, 'sign out with POST');
          logout(request, response);
        } else if (method !== 'GET' && method !== 'HEAD') {
          throw new SignInRefused(405, 'GET only');
        } else if (pathname === SIGN_IN_PATH) await login(request, response);
        else if (pathname === CALLBACK_PATH) await callback(request, response);
        else throw new SignInRefused(404, 'not found');
      } catch (error: unknown) {
        if (!(error instanceof SignInRefused)) throw error;
        response.writeHead(error.status, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          ...(error.status === 405 ? { allow: pathname === LOGOUT_PATH ? 'POST' : 'GET, HEAD' } : {}),
        });
        response.end(`${error.message}\n`);
      }
    },
    session: (request) => options.sessions.check(cookieValue(request.headers.cookie, SESSION_COOKIE)),
  };
}

/** The user and groups of the ID token's claims, named as the API server's OIDC flags name them. */
function subjectOf(claims: Record<string, unknown>, options: UiSignInOptions): UiSubject {
  const name = claims[options.usernameClaim];
  if (typeof name !== 'string' || name === '')
    throw new SignInRefused(
      401,
      `sign-in refused: the ID token has no claim '${options.usernameClaim}' to name the user ` +
        '(KADDON_UI_OIDC_USERNAME_CLAIM)',
    );
  const listed = claims[options.groupsClaim];
  const groups =
    typeof listed === 'string'
      ? [listed]
      : Array.isArray(listed)
        ? listed.filter((group): group is string => typeof group === 'string')
        : [];
  return {
    user: `${options.usernamePrefix}${name}`,
    groups: groups.map((group) => `${options.groupsPrefix}${group}`),
  };
}

interface Flow {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly back: string;
}

function asFlow(data: unknown): Flow | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { state, nonce, verifier, back } = data as Record<string, unknown>;
  return typeof state === 'string' &&
    typeof nonce === 'string' &&
    typeof verifier === 'string' &&
    typeof back === 'string'
    ? { state, nonce, verifier, back }
    : undefined;
}

/** Where to go after signing in: a page under /ui/ of this server, nothing else (no open redirect). */
function returnPath(asked: string | null | undefined): string {
  if (asked === null || asked === undefined || !asked.startsWith('/ui/') || /[\\\s]/u.test(asked))
    return '/ui/';
  const url = new URL(asked, 'http://page.invalid');
  return url.origin === 'http://page.invalid' && url.pathname.startsWith('/ui/')
    ? `${url.pathname}${url.search}`
    : '/ui/';
}

/** A logout from another site is refused: browsers send Sec-Fetch-Site, and Origin with a POST. */
function isSameOrigin(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

function cookie(
  name: string,
  value: string,
  attributes: { path: string; maxAge: number; sameSite: 'Strict' | 'Lax'; secure: boolean },
): string {
  return [
    `${name}=${value}`,
    `Path=${attributes.path}`,
    `Max-Age=${String(attributes.maxAge)}`,
    'HttpOnly',
    `SameSite=${attributes.sameSite}`,
    ...(attributes.secure ? ['Secure'] : []),
  ].join('; ');
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
