import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../queue-test-kit.ts';
import type {
  NotificationCounters,
  NotificationFailure,
} from '../../src/observability/notifications/notification-counters.ts';
import type { NotificationStateStore, Notifier } from '../../src/observability/notifications/notifier.ts';
import type { JsonObject } from '../../src/core/json.ts';

/** A token in every receiver's URL, so that tests can look for it where it must not be. */
export const URL_TOKEN = 'T0KEN-d9f3a1c7e5b2';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: Buffer;
  readonly json: unknown;
  /** The status it was answered with. */
  readonly status: number;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A real HTTP receiver on 127.0.0.1 standing in for Slack, Teams or a webhook endpoint: it keeps
 * every request and answers as `answer` says (200 unless told otherwise).
 */
export class NotificationReceiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (request: { readonly index: number }) => Answer = () => ({ status: 200 });
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<NotificationReceiver> {
    const server = createServer();
    const receiver = new NotificationReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        const { status, headers = {} } = receiver.answer({ index: receiver.requests.length });
        receiver.requests.push({
          path: request.url ?? '',
          headers: request.headers,
          raw,
          json: JSON.parse(raw.toString('utf8')) as unknown,
          status,
        });
        response.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
        response.end(status < 300 ? 'ok' : 'not now');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hooks/${URL_TOKEN}`;
  }

  /** The bodies it answered with 2xx, in the order they arrived: what the user sees. */
  get accepted(): unknown[] {
    return this.requests.filter(({ status }) => status < 300).map(({ json }) => json);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** Counters that remember every call, as `sent:<channel>` and `failed:<channel>:<reason>`. */
export function recordingCounters(): NotificationCounters & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    sent: (channel) => calls.push(`sent:${channel}`),
    failed: (channel: string, reason: NotificationFailure) => calls.push(`failed:${channel}:${reason}`),
  };
}

/** A state store in memory; the same one given to a second Notifier stands for a restart. */
export function memoryStore(): NotificationStateStore & { state: JsonObject | undefined } {
  const store = {
    state: undefined as JsonObject | undefined,
    load: () => Promise.resolve(store.state === undefined ? undefined : structuredClone(store.state)),
    save: (state: JsonObject) => {
      store.state = structuredClone(state);
      return Promise.resolve();
    },
  };
  return store;
}

/** Moves the clock `ms` forward in steps, letting each request in flight finish before the next step. */
export async function runFor(
  clock: ManualClock,
  notifier: Notifier,
  ms: number,
  stepMs = 1_000,
): Promise<void> {
  for (let moved = 0; moved < ms; moved += stepMs) {
    await clock.advance(Math.min(stepMs, ms - moved));
    await notifier.settled();
  }
}
