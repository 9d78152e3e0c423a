import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGitWebhookRoute, GIT_WEBHOOK_PATH, type GitWebhookOptions } from './git-webhook-route.ts';
import type { Logger } from './logger.ts';
import { parseRequestTarget, SERVER_TIMEOUTS } from './request-target.ts';
import { isUiPath } from './ui/ui-route.ts';

/** A registry's exposition: prom-client's Registry fits. */
interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface HttpServerOptions {
  /** ADDON_OPERATOR_LISTEN_ADDRESS. */
  readonly address: string;
  /** ADDON_OPERATOR_LISTEN_PORT; 0 picks a free port. */
  readonly port: number;
  /**
   * Registries served together on /metrics: the built-in metrics, then the hooks' custom metrics
   * (docs/hooks.md "Metrics from hooks": Prometheus scrapes them from the same target).
   */
  readonly sources: readonly MetricsSource[];
  readonly logger?: Logger | undefined;
  /** POST /hooks/git, only when a webhook secret is set (docs/git-webhook.md); otherwise 404. */
  readonly gitWebhook?: GitWebhookOptions | undefined;
  /** Everything under /ui: the status page (docs/ui.md), unless KADDON_UI=off; otherwise 404. */
  readonly ui?: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined;
}

export interface OperatorHttpServer {
  /** Listens; resolves with the address and port actually bound. */
  start(): Promise<{ address: string; port: number }>;
  stop(): Promise<void>;
  /** /readyz answers 200 from now on: called once the first convergence is done. */
  setReady(): void;
  /**
   * ADDON_OPERATOR_HA: while standing by, /readyz answers 200 with `text` (a standby is a healthy
   * replica, and rolling updates need it ready); undefined once this process leads.
   */
  setStandby(text: string | undefined): void;
  isReady(): boolean;
}

const GET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * /metrics, /healthz (alive while the process runs), /readyz (after the first convergence), and with
 * a webhook secret /hooks/git. Bad input is a 4xx with one line: a target no URL can be made of is
 * 400, another path 404, another method 405; Node itself answers 400 to an unknown method, 431 to
 * headers over 16 KiB and 408 past the timeouts of SERVER_TIMEOUTS.
 */
export function createHttpServer(options: HttpServerOptions): OperatorHttpServer {
  let ready = false;
  let server: Server | undefined;

  let standby: string | undefined;
  const gitWebhook = options.gitWebhook && createGitWebhookRoute(options.gitWebhook);
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = parseRequestTarget(request.url)?.pathname;
    if (path === undefined) reply(response, 400, 'bad request target\n');
    else if (path === GIT_WEBHOOK_PATH && gitWebhook !== undefined) gitWebhook(request, response);
    else if (isUiPath(path) && options.ui !== undefined) await options.ui(request, response);
    else if (!GET_PATHS.has(path)) reply(response, 404, 'not found\n');
    else if (request.method !== 'GET' && request.method !== 'HEAD')
      reply(response, 405, 'method not allowed\n');
    else if (path === '/healthz') reply(response, 200, 'ok\n');
    else if (path === '/readyz' && standby !== undefined) reply(response, 200, `${standby}\n`);
    else if (path === '/readyz')
      reply(response, ready ? 200 : 503, ready ? 'ok\n' : 'not ready: the first convergence is not done\n');
    else reply(response, 200, await exposition(options.sources), PROMETHEUS_TEXT);
  };

  return {
    setStandby: (text) => {
      standby = text;
    },
    start: () =>
      new Promise((resolve, reject) => {
        const listening = createServer(SERVER_TIMEOUTS, (request, response) => {
          handle(request, response).catch((error: unknown) => {
            // Only a bug gets here: bad input is answered above.
            options.logger?.error('HTTP request failed', { error: String(error) });
            reply(response, 500, 'internal error\n');
          });
        });
        listening.once('error', reject);
        listening.listen(options.port, options.address, () => {
          listening.off('error', reject);
          server = listening;
          const bound = listening.address() as AddressInfo;
          resolve({ address: bound.address, port: bound.port });
        });
      }),
    stop: () =>
      new Promise((resolve, reject) => {
        const running = server;
        server = undefined;
        if (running === undefined) {
          resolve();
          return;
        }
        running.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        running.closeAllConnections();
      }),
    isReady: () => ready,
    setReady: () => {
      ready = true;
    },
  };
}

async function exposition(sources: readonly MetricsSource[]): Promise<string> {
  const texts = await Promise.all(sources.map((source) => source.metrics()));
  return texts.filter((text) => text.trim() !== '').join('\n');
}

function reply(
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': contentType });
  response.end(body);
}
