import https from 'node:https';
import type { IncomingMessage } from 'node:http';
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
    return 'The API server is down or overloaded; kaddon retries with backoff.';
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

/** A small Kubernetes API client over node:https: JSON requests, watch streams and discovery. */
export class KubeClient {
  readonly #connection: KubeConnection;
  readonly #timeoutMs: number;
  readonly #metrics: KubeRequestMetrics | undefined;
  readonly #discovery = new Map<string, Promise<ApiResource[]>>();
  readonly #limiter: RequestRateLimiter | undefined;

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
      const response = await this.#send(method, url, apiPath, options, this.#timeoutMs);
      const text = await readBody(response);
      const status = response.statusCode ?? 0;
      const parsed = parseJson(text);
      if (status >= 400) throw apiError(method, apiPath, status, parsed, text);
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
    const url = this.#url(apiPath, { ...query, watch: true });
    const response = await this.#send('GET', url, apiPath, {}, options.idleMs, options.signal);
    const status = response.statusCode ?? 0;
    if (status >= 400) {
      const text = await readBody(response);
      throw apiError('WATCH', apiPath, status, parseJson(text), text);
    }
    await streamEvents(response, apiPath, onEvent, options);
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
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    await this.#limiter?.acquire(signal);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const tls = await this.#connection.requestOptions();
    const headers: Record<string, string> = { ...tls.headers, accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      // A length for every body: DELETE and GET requests with a body are not sent chunked.
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    let answered = false;
    const countResult = (code: string): void => {
      if (!answered) this.#metrics?.kubeRequestResult({ code, method, host: url.host });
      answered = true;
    };
    return new Promise((resolve, reject) => {
      const request = https.request(url, {
        method,
        headers,
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.cert === undefined ? {} : { cert: tls.cert }),
        ...(tls.key === undefined ? {} : { key: tls.key }),
        rejectUnauthorized: tls.rejectUnauthorized ?? true,
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      });
      request.on('response', (response) => {
        countResult(String(response.statusCode ?? 0));
        resolve(response);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', (error) => {
        countResult('<error>');
        reject(new KubeApiError(method, apiPath, 0, 'Unreachable', error.message, { cause: error }));
      });
      request.end(payload);
    });
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

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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

async function streamEvents(
  response: IncomingMessage,
  apiPath: string,
  onEvent: (event: WatchEvent) => void,
  options: { signal: AbortSignal; idleMs: number },
): Promise<void> {
  let buffered = '';
  response.setTimeout(options.idleMs, () =>
    response.destroy(new Error(`watch silent for ${options.idleMs} ms`)),
  );
  try {
    for await (const chunk of response) {
      buffered += (chunk as Buffer).toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) handleLine(line, apiPath, onEvent);
        newline = buffered.indexOf('\n');
      }
    }
  } catch (error: unknown) {
    if (options.signal.aborted) return;
    if (error instanceof KubeApiError) throw error;
    throw new KubeApiError('WATCH', apiPath, 0, 'Disconnected', errorMessage(error), { cause: error });
  }
}

function handleLine(line: string, apiPath: string, onEvent: (event: WatchEvent) => void): void {
  const event = parseJson(line);
  const object = event?.object;
  if (!event || !isJsonObject(object))
    throw new KubeApiError('WATCH', apiPath, 0, 'BadEvent', `unparsable watch event: ${line.slice(0, 120)}`);
  if (event.type === 'ERROR') {
    const status = typeof object.code === 'number' ? object.code : 500;
    throw apiError('WATCH', apiPath, status, object, line);
  }
  if (
    event.type === 'ADDED' ||
    event.type === 'MODIFIED' ||
    event.type === 'DELETED' ||
    event.type === 'BOOKMARK'
  ) {
    onEvent({ type: event.type, object });
  }
}
