import { type HttpMethod, RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { IsomorphicFetchHttpLibrary } from '@kubernetes/client-node/dist/gen/http/isomorphic-fetch.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { errorMessage, KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { KubeConnection } from './kube-connection.ts';
import { RequestRateLimiter } from './request-rate-limiter.ts';
import { requestUrlTemplate } from './request-url-template.ts';

/** An API call the server refused, or that could not reach it (status 0). */
export class KubeApiError extends KaddonError {
  readonly code = 'kube-api';
  readonly status: number;
  readonly reason: string;
  constructor(
    method: string,
    apiPath: string,
    status: number,
    reason: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `kubernetes API '${method} ${apiPath}': ${status === 0 ? 'unreachable' : `${status} ${reason}`}: ${detail}.`,
      hintFor(status),
      options,
    );
    this.status = status;
    this.reason = reason;
  }
}

function hintFor(status: number): string {
  if (status === 403) return "Grant the operator's service account the RBAC permission for this resource.";
  if (status === 0 || status >= 500)
    return 'The API server is down or overloaded: the operator retries with backoff; a command run by hand can be run again.';
  return 'Check the resource, its name and namespace.';
}

/** A resource type as discovery reports it. */
export interface ApiResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural, as in the URL. */
  readonly name: string;
  readonly namespaced: boolean;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly object: JsonObject;
}

export interface RequestOptions {
  readonly query?: Query;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Ends the request early, besides the client's own timeout (a leader's renew deadline). */
  readonly signal?: AbortSignal;
}

/**
 * Where the client reports its requests, with client-go's labels (docs/observability.md
 * "Metrics": kubernetes_client_request_result_total, kubernetes_client_request_latency_seconds).
 * OperatorMetrics is one.
 */
export interface KubeRequestMetrics {
  /** Every request once: the HTTP status, or `<error>` when no response came. */
  kubeRequestResult(labels: { code: string; method: string; host: string }): void;
  /** A request/response call up to its whole body; watches have no latency, as in client-go. */
  kubeRequestLatency(labels: { verb: string; url: string }, seconds: number): void;
}

export interface KubeClientOptions {
  /** How long a request may go without an answer; 30 s by default. */
  readonly timeoutMs?: number;
  readonly metrics?: KubeRequestMetrics;
  /**
   * Client-side rate limit, as client-go's (KUBE_CLIENT_QPS and KUBE_CLIENT_BURST): `qps` requests a
   * second after a burst of `burst`; a watch counts once, when it starts. None by default.
   */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
}

/**
 * kaddon's Kubernetes API client: JSON requests, watch streams and discovery on
 * @kubernetes/client-node's transport (its RequestContext and fetch over undici for requests, its
 * Watch for watches), with client-go's rate limit, request metrics and error reporting on top.
 */
export class KubeClient {
  readonly #connection: KubeConnection;
  readonly #timeoutMs: number;
  readonly #metrics: KubeRequestMetrics | undefined;
  readonly #discovery = new Map<string, Promise<ApiResource[]>>();
  readonly #limiter: RequestRateLimiter | undefined;
  readonly #http = new IsomorphicFetchHttpLibrary();

  constructor(connection: KubeConnection, options: KubeClientOptions = {}) {
    this.#connection = connection;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#metrics = options.metrics;
    const limit = options.rateLimit;
    this.#limiter = limit && limit.qps > 0 ? new RequestRateLimiter(limit.qps, limit.burst) : undefined;
  }

  async request(method: string, apiPath: string, options: RequestOptions = {}): Promise<JsonObject> {
    const url = this.#url(apiPath, options.query);
    const startedAt = performance.now();
    try {
      let answer = await this.#send(method, url, apiPath, options);
      if (answer.status === 401) {
        // client-go's rule: a refused token is read again (a rotated service account token); the
        // server did nothing with the refused request, so it is sent once more.
        this.#connection.credentialsRejected();
        answer = await this.#send(method, url, apiPath, options);
      }
      const parsed = parseJson(answer.text);
      if (answer.status >= 400) throw apiError(method, apiPath, answer.status, parsed, answer.text);
      return parsed ?? {};
    } finally {
      const seconds = (performance.now() - startedAt) / 1000;
      this.#metrics?.kubeRequestLatency({ verb: method, url: requestUrlTemplate(url) }, seconds);
    }
  }

  /**
   * Streams watch events to `onEvent` until the server ends the watch (resolves), the signal
   * aborts (resolves), or an error: a network failure, an HTTP error or an ERROR event such as
   * 410 Gone (rejects with KubeApiError). `idleMs` ends a silent connection.
   */
  async watch(
    apiPath: string,
    query: Query,
    onEvent: (event: WatchEvent) => void,
    options: { signal: AbortSignal; idleMs: number },
  ): Promise<void> {
    await this.#limiter?.acquire(options.signal);
    if (options.signal.aborted) return;
    const watcher = new Watch(this.#connection.config);
    // How long the watch may stay silent; a plain property of client-node's Watch, private in its typings.
    (watcher as unknown as { requestTimeoutMs: number }).requestTimeoutMs = options.idleMs;
    const host = new URL(this.#connection.server).host;
    const params = Object.fromEntries(
      Object.entries(query).filter(
        (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
      ),
    );
    await new Promise<void>((resolve, reject) => {
      let failure: KubeApiError | undefined;
      let controller: AbortController | undefined;
      let ended = false;
      const stop = (): void => {
        controller?.abort();
      };
      options.signal.addEventListener('abort', stop, { once: true });
      const end = (error: unknown): void => {
        if (ended) return;
        ended = true;
        options.signal.removeEventListener('abort', stop);
        if (!controller)
          this.#metrics?.kubeRequestResult({ code: watchResultCode(error), method: 'GET', host });
        if (options.signal.aborted) resolve();
        else if (failure) reject(failure);
        else if (error) reject(watchError(apiPath, error, options.idleMs));
        else resolve();
      };
      const receive = (type: string, object: unknown): void => {
        if (failure || ended) return;
        try {
          handleEvent(type, object, apiPath, onEvent);
        } catch (error: unknown) {
          failure = error instanceof KubeApiError ? error : watchError(apiPath, error, options.idleMs);
          controller?.abort();
        }
      };
      watcher.watch(apiPath, params, receive, end).then(
        (started) => {
          if (ended) return;
          controller = started;
          this.#metrics?.kubeRequestResult({ code: '200', method: 'GET', host });
          if (failure || options.signal.aborted) started.abort();
        },
        (error: unknown) => {
          end(error);
        },
      );
    });
  }

  /**
   * Finds the resource serving `kind` in `apiVersion`, asking discovery again once if unknown (a new CRD).
   */
  async resolveResource(apiVersion: string, kind: string): Promise<ApiResource> {
    for (const refresh of [false, true]) {
      if (refresh) this.#discovery.delete(apiVersion);
      const found = (await this.#resources(apiVersion)).find((resource) => resource.kind === kind);
      if (found) return found;
    }
    throw new KubeApiError(
      'GET',
      discoveryPath(apiVersion),
      404,
      'NotFound',
      `no resource of kind '${kind}' in '${apiVersion}'`,
    );
  }

  #resources(apiVersion: string): Promise<ApiResource[]> {
    let cached = this.#discovery.get(apiVersion);
    if (!cached) {
      cached = this.request('GET', discoveryPath(apiVersion)).then((list) =>
        parseResourceList(apiVersion, list),
      );
      cached.catch(() => this.#discovery.delete(apiVersion));
      this.#discovery.set(apiVersion, cached);
    }
    return cached;
  }

  #url(apiPath: string, query: Query | undefined): URL {
    const url = new URL(apiPath, this.#connection.server);
    for (const [key, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  async #send(
    method: string,
    url: URL,
    apiPath: string,
    options: RequestOptions,
  ): Promise<{ status: number; text: string }> {
    await this.#limiter?.acquire(options.signal);
    const context = new RequestContext(url.toString(), method as HttpMethod);
    context.setHeaderParam('Accept', 'application/json');
    if (options.body !== undefined) {
      context.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      context.setBody(JSON.stringify(options.body));
    }
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    context.setSignal(options.signal ? AbortSignal.any([timeout, options.signal]) : timeout);
    await this.#connection.config.applySecurityAuthentication(context);
    let answered = false;
    try {
      const response = await this.#http.send(context).toPromise();
      answered = true;
      this.#metrics?.kubeRequestResult({ code: String(response.httpStatusCode), method, host: url.host });
      return { status: response.httpStatusCode, text: await response.body.text() };
    } catch (error: unknown) {
      if (!answered) this.#metrics?.kubeRequestResult({ code: '<error>', method, host: url.host });
      const detail = options.signal?.aborted
        ? 'ended by the caller before an answer came'
        : isTimeout(error)
          ? `no answer within ${String(this.#timeoutMs)} ms`
          : fetchErrorMessage(error);
      throw new KubeApiError(method, apiPath, 0, 'Unreachable', detail, { cause: error });
    }
  }
}

function discoveryPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function parseResourceList(apiVersion: string, list: JsonObject): ApiResource[] {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  const resources = Array.isArray(list.resources) ? list.resources : [];
  return resources.filter(isJsonObject).flatMap((resource) => {
    const name = resource.name;
    if (typeof name !== 'string' || name.includes('/') || typeof resource.kind !== 'string') return [];
    return [
      {
        group: group ?? '',
        version: version ?? '',
        kind: resource.kind,
        name,
        namespaced: resource.namespaced === true,
      },
    ];
  });
}

/** `/api/v1/namespaces/ns/configmaps` or `/apis/apps/v1/deployments`, with an optional name. */
export function resourcePath(resource: ApiResource, namespace?: string, name?: string): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const scoped =
    resource.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}` : base;
  return `${scoped}/${resource.name}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

function parseJson(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function apiError(
  method: string,
  apiPath: string,
  status: number,
  body: JsonObject | undefined,
  text: string,
): KubeApiError {
  const reason = typeof body?.reason === 'string' ? body.reason : 'Error';
  const message = typeof body?.message === 'string' ? body.message : text.slice(0, 200);
  return new KubeApiError(method, apiPath, status, reason, message);
}

function handleEvent(
  type: string,
  object: unknown,
  apiPath: string,
  onEvent: (event: WatchEvent) => void,
): void {
  if (!isJsonObject(object))
    throw new KubeApiError('WATCH', apiPath, 0, 'BadEvent', `a ${type} event without an object`);
  if (type === 'ERROR') {
    const status = typeof object.code === 'number' ? object.code : 500;
    throw apiError('WATCH', apiPath, status, object, JSON.stringify(object));
  }
  if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK')
    onEvent({ type, object });
}

/** client-node's Watch reports a refused watch as an Error with `statusCode`, a silent one as a TimeoutError. */
function watchError(apiPath: string, error: unknown, idleMs: number): KubeApiError {
  const status = statusCodeOf(error);
  if (status !== undefined) {
    const reason = error instanceof Error ? error.message : 'Error';
    return new KubeApiError('WATCH', apiPath, status, reason, `the server refused the watch (${reason})`, {
      cause: error,
    });
  }
  const detail = isTimeout(error) ? `watch silent for ${String(idleMs)} ms` : fetchErrorMessage(error);
  return new KubeApiError('WATCH', apiPath, 0, 'Disconnected', detail, { cause: error });
}

function watchResultCode(error: unknown): string {
  const status = statusCodeOf(error);
  return status === undefined ? '<error>' : String(status);
}

function statusCodeOf(error: unknown): number | undefined {
  const status = error instanceof Error ? (error as Error & { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' ? status : undefined;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** undici's `fetch failed` says why only in its cause (ECONNREFUSED, a TLS error, …). */
function fetchErrorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  return cause ? `${error.message}: ${errorMessage(cause)}` : errorMessage(error);
}
