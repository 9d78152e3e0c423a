import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestTarget } from '../request-target.ts';
import type { UiAccess } from './ui-access.ts';
import type { UiSubject } from './ui-session.ts';
import { SIGN_IN_PATH, type UiSignIn } from './ui-sign-in.ts';
import type { UiHook, UiQueueList, UiState, UiTask } from './ui-state.ts';

/** The status page's path on the operator's HTTP server (docs/ui.md). */
const UI_PATH = '/ui';

export interface UiRouteOptions {
  readonly state: () => UiState | undefined;
  /** The access of a bearer token (ui-access.ts), or OPEN_ACCESS for everyone with KADDON_UI_AUTH=off. */
  readonly access: (token: string | undefined) => Promise<UiAccess>;
  /**
   * Sign-in through an OpenID Connect provider (KADDON_UI_OIDC_ISSUER), beside bearer tokens: a
   * session cookie's user and groups get the access `access` of a subject says (docs/ui.md "Signing in").
   */
  readonly signIn?:
    { readonly flow: UiSignIn; readonly access: (subject: UiSubject) => Promise<UiAccess> } | undefined;
  /** Where index.html, app.js and app.css are: dist/ui in the package and the image. */
  readonly assetsDir: string;
  /** How often an open page's stream compares the state; the page shows a change within 2 s. */
  readonly changeCheckMs?: number;
  /** How often an open stream's token is checked again: a revoked token's streams end (docs/ui.md "Limits"). */
  readonly accessRecheckMs?: number;
}

/** Event streams open at once, all users together; beyond them a new one is answered 503. */
const MAX_STREAMS = 100;
/** Rechecks in a row that may fail to reach a verdict before a stream ends anyway. */
const MAX_UNCHECKED = 3;
/** What a 503 tells the page and other clients: the answer may differ in a moment. */
const RETRY_AFTER_SECONDS = '2';

/**
 * A Content-Security-Policy with no inline script and no framing: the page loads its own script
 * and style and talks only to this server (docs/ui.md "Security").
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;

const ASSETS = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const satisfies Record<string, string>;

/** Page URLs: each view is served the same page, which reads its path and query. */
const PAGE = /^\/ui\/(?:|modules|modules\/[^/]+|queues|global-hooks|timeline)$/;

export function isUiPath(pathname: string): boolean {
  return pathname === UI_PATH || pathname.startsWith(`${UI_PATH}/`);
}

/** Answers every request under /ui; nothing there changes anything, so only GET and HEAD are served. */
export function createUiRoute(
  options: UiRouteOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const assets = new Map<string, Buffer>();
  const asset = (name: string): Buffer => {
    let body = assets.get(name);
    if (body === undefined) {
      body = readFileSync(path.join(options.assetsDir, name));
      assets.set(name, body);
    }
    return body;
  };
  const changes = createChangeFeed(options);
  const signIn = options.signIn;
  /** A bearer token first, then the session cookie; who sent neither is asked to sign in. */
  const accessOf = (request: IncomingMessage): Promise<UiAccess> => {
    const token = bearerToken(request);
    if (token !== undefined || signIn === undefined) return options.access(token);
    const session = signIn.flow.session(request);
    if (session.state === 'valid') return signIn.access(session.session);
    return Promise.resolve({
      allowed: false,
      status: 401,
      why: session.state === 'none' ? 'sign in, or send a bearer token' : session.why,
    });
  };
  return async (request, response) => {
    if (/\bgzip\b/u.test(request.headers['accept-encoding'] ?? '')) acceptsGzip.add(response);
    // The HTTP server answers 400 to a target no URL can be made of before it gets here.
    const target = parseRequestTarget(request.url);
    const pathname = target?.pathname ?? '/';
    if (pathname.startsWith(`${UI_PATH}/auth/`) && signIn !== undefined) {
      await signIn.flow.handle(request, response);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'the status page is read-only: GET only\n', 'text/plain; charset=utf-8', {
        allow: 'GET, HEAD',
      });
      return;
    }
    if (pathname === UI_PATH) {
      send(response, 308, '', 'text/plain; charset=utf-8', { location: `${UI_PATH}/` });
      return;
    }
    if (PAGE.test(pathname)) {
      send(response, 200, asset('index.html'), 'text/html; charset=utf-8');
      return;
    }
    const assetName = pathname.slice(`${UI_PATH}/assets/`.length);
    if (pathname.startsWith(`${UI_PATH}/assets/`) && Object.hasOwn(ASSETS, assetName)) {
      send(response, 200, asset(assetName), ASSETS[assetName as keyof typeof ASSETS], {
        'cache-control': 'no-cache',
      });
      return;
    }
    if (!pathname.startsWith(`${UI_PATH}/api/`)) {
      send(response, 404, 'not found\n', 'text/plain; charset=utf-8');
      return;
    }
    const access = await accessOf(request);
    if (!access.allowed) {
      // The page offers to sign in when the operator can do it, beside pasting a token.
      const offer = signIn !== undefined && access.status === 401 ? { signIn: SIGN_IN_PATH } : {};
      sendJson(response, access.status, { error: access.why, ...offer }, retryAfter(access.status));
      return;
    }
    const state = options.state();
    if (state === undefined) {
      sendJson(
        response,
        503,
        { error: 'the operator is starting or standing by: ask again shortly' },
        retryAfter(503),
      );
      return;
    }
    const api = pathname.slice(`${UI_PATH}/api/`.length);
    if (api === 'events' && request.method === 'HEAD') response.writeHead(200, STREAM_HEADERS).end();
    else if (api === 'events') changes.follow(response, () => accessOf(request));
    else {
      const via = bearerToken(request) !== undefined ? 'token' : signIn !== undefined ? 'session' : 'open';
      await answerApi(response, api, target?.searchParams ?? new URLSearchParams(), state, {
        ...access,
        via,
      });
    }
  };
}

async function answerApi(
  response: ServerResponse,
  api: string,
  query: URLSearchParams,
  state: UiState,
  access: UiAccess & { allowed: true; via: 'token' | 'session' | 'open' },
): Promise<void> {
  const moduleMatch = /^modules\/([^/]+)(?:\/(values|origins|releases|revision-diff|diff))?$/.exec(api);
  if (api === 'overview') sendJson(response, 200, state.overview());
  else if (api === 'modules') sendJson(response, 200, state.modules());
  else if (api === 'queues') sendJson(response, 200, queuesFor(access, state.queues()));
  else if (api === 'global-hooks') sendJson(response, 200, hooksFor(access, state.globalHooks()));
  else if (api === 'timeline')
    sendJson(
      response,
      200,
      state.timeline({
        ...(query.get('module') ? { module: query.get('module') ?? '' } : {}),
        ...(query.get('kind') ? { kind: query.get('kind') ?? '' } : {}),
      }),
    );
  else if (api === 'global/origins')
    sendJson(
      response,
      access.canReadConfig ? 200 : 403,
      access.canReadConfig
        ? state.valueOrigins(undefined, { secrets: access.canReadSecrets })
        : { error: `${access.user} may not get the operator's ConfigMap: values are not shown` },
    );
  else if (api === 'whoami')
    sendJson(response, 200, {
      user: access.user,
      canReadConfig: access.canReadConfig,
      canReadSecrets: access.canReadSecrets,
      /** How this request was let in: a pasted token, a sign-in's session (the page offers to sign out), or KADDON_UI_AUTH=off. */
      via: access.via,
    });
  else if (moduleMatch !== null) {
    const name = decodedName(moduleMatch[1] ?? '');
    if (name === undefined) {
      sendJson(response, 400, { error: 'the module name in the URL is not valid percent-encoding' });
      return;
    }
    const detail = await state.module(name);
    const part = moduleMatch[2];
    if (detail === undefined)
      sendJson(response, 404, { error: `module '${name}' is not in the modules tree` });
    else if (part === undefined)
      sendJson(response, 200, { ...detail, hooks: hooksFor(access, detail.hooks) });
    else if (part === 'releases') sendJson(response, 200, await state.releases(name));
    else if (!access.canReadConfig)
      sendJson(response, 403, {
        error: `${access.user} may not get the operator's ConfigMap: values and diffs are not shown`,
      });
    else if (part === 'values')
      sendJson(response, 200, state.moduleValues(name, { secrets: access.canReadSecrets }));
    else if (part === 'origins')
      sendJson(response, 200, state.valueOrigins(name, { secrets: access.canReadSecrets }));
    else if (part === 'diff') sendJson(response, 200, await state.moduleDiff(name));
    else await answerRevisionDiff(response, name, query, state);
  } else sendJson(response, 404, { error: `no such API: ${api}` });
}

async function answerRevisionDiff(
  response: ServerResponse,
  name: string,
  query: URLSearchParams,
  state: UiState,
): Promise<void> {
  const [from, to] = ['from', 'to'].map((key) => {
    const text = query.get(key) ?? '';
    return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
  });
  if (from === undefined || to === undefined) {
    sendJson(response, 400, { error: 'say which revisions to compare: ?from=N&to=M' });
    return;
  }
  const text = await state.revisionDiff(name, from, to);
  if (text === undefined)
    sendJson(response, 404, {
      error: `release '${name}' has no revision ${String(from)} or ${String(to)} in its history`,
    });
  else sendJson(response, 200, { from, to, text });
}

/** Hooks' runs, with what the hooks wrote only for who may get the ConfigMap, as values are. */
function hooksFor(access: UiAccess & { allowed: true }, hooks: readonly UiHook[]): readonly UiHook[] {
  if (access.canReadConfig) return hooks;
  return hooks.map((hook) => ({
    ...hook,
    lastRuns: hook.lastRuns.map(({ binding, startedAt, durationMs, outcome }) => ({
      binding,
      startedAt,
      durationMs,
      outcome,
    })),
  }));
}

/** Queues, with tasks' last errors (a hook's stderr) only for who may get the ConfigMap, as hooks' output. */
function queuesFor(access: UiAccess & { allowed: true }, list: UiQueueList): UiQueueList {
  if (access.canReadConfig) return list;
  const withoutErrors = (queues: UiQueueList['active']): UiQueueList['active'] =>
    queues.map((queue) => ({ ...queue, tasks: queue.tasks.map(withoutLastError) }));
  return {
    ...list,
    active: withoutErrors(list.active),
    ...(list.empty === undefined ? {} : { empty: withoutErrors(list.empty) }),
  };
}

function withoutLastError(task: UiTask): UiTask {
  const { index, id, type, description, attempts, failures, retryAt } = task;
  return { index, id, type, description, attempts, failures, ...(retryAt === undefined ? {} : { retryAt }) };
}

const STREAM_HEADERS = {
  ...SECURITY_HEADERS,
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
} as const;

/**
 * Server-sent events: `changed` whenever the modules or queues differ from the last look. The
 * state is compared only while a page is open; with nobody looking nothing runs. Each stream's
 * token is checked again every `accessRecheckMs` (an answer kept 10 s, then a new review): one
 * that no longer passes gets `denied` with the reason and its stream ends.
 */
function createChangeFeed(options: UiRouteOptions): {
  follow(response: ServerResponse, access: () => Promise<UiAccess>): void;
} {
  const open = new Set<ServerResponse>();
  let timer: NodeJS.Timeout | undefined;
  let last = '';
  const fingerprint = (): string => {
    const state = options.state();
    if (state === undefined) return '';
    return createHash('sha256')
      .update(JSON.stringify([state.modules(), state.queues()]))
      .digest('hex');
  };
  const look = (): void => {
    const now = fingerprint();
    if (now === last) return;
    last = now;
    for (const response of open) response.write(`event: changed\ndata: ${now}\n\n`);
  };
  return {
    follow: (response, access) => {
      if (open.size >= MAX_STREAMS) {
        sendJson(
          response,
          503,
          { error: `${String(MAX_STREAMS)} event streams are open already: ask again shortly` },
          retryAfter(503),
        );
        return;
      }
      response.writeHead(200, STREAM_HEADERS);
      response.write('retry: 1000\n\n');
      // A comment every 15 s keeps proxies and the page's idle checks from closing a quiet stream.
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
      heartbeat.unref();
      let unchecked = 0;
      const recheck = setInterval(() => {
        void access().then((now) => {
          // A token that cannot be checked now (busy, the API server away) keeps its stream a while.
          unchecked = !now.allowed && now.status === 503 ? unchecked + 1 : 0;
          if (now.allowed || response.writableEnded || (now.status === 503 && unchecked < MAX_UNCHECKED))
            return;
          response.end(`event: denied\ndata: ${JSON.stringify({ error: now.why })}\n\n`);
        });
      }, options.accessRecheckMs ?? 10_000);
      recheck.unref();
      // The page has just drawn what it fetched: only later changes are sent.
      if (open.size === 0) last = fingerprint();
      open.add(response);
      timer ??= setInterval(look, options.changeCheckMs ?? 500);
      timer.unref();
      response.on('close', () => {
        clearInterval(heartbeat);
        clearInterval(recheck);
        open.delete(response);
        if (open.size > 0 || timer === undefined) return;
        clearInterval(timer);
        timer = undefined;
      });
    },
  };
}

function decodedName(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  send(response, status, JSON.stringify(body), 'application/json; charset=utf-8', extra);
}

function retryAfter(status: number): Record<string, string> {
  return status === 503 ? { 'retry-after': RETRY_AFTER_SECONDS } : {};
}

/** Responses whose request said it takes gzip: bodies over COMPRESS_FROM bytes are sent gzipped. */
const acceptsGzip = new WeakSet<ServerResponse>();
const COMPRESS_FROM = 1024;

function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  extra: Record<string, string> = {},
): void {
  const gzip = acceptsGzip.has(response) && Buffer.byteLength(body) > COMPRESS_FROM;
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    vary: 'accept-encoding',
    ...extra,
    'content-type': contentType,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  response.end(gzip ? gzipSync(body) : body);
}
