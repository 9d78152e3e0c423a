import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import { createDebugServer } from '../../src/observability/debug/debug-server.ts';
import { createHttpServer } from '../../src/observability/http-server.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startWebhookSignatureCheck } from '../../src/sources/git-webhook-signature.ts';
import { fakeDebugState } from '../debug/fake-debug-state.ts';
import { rawExchange, type RawTarget } from '../http/raw-http.ts';
import { makeTempTree } from '../temp-tree.ts';

const SECRET = 'fuzz-secret';

/** The debug socket (answering from fakeDebugState) and the HTTP port with the webhook, with their log. */
export interface FuzzedServers {
  readonly debug: RawTarget;
  readonly http: RawTarget;
  /** Everything both servers logged so far. */
  log(): string;
  stop(): Promise<void>;
}

export async function startFuzzedServers(): Promise<FuzzedServers> {
  const tree = makeTempTree('server-fuzz');
  let log = '';
  const logger = createLogger({
    type: 'text',
    level: 'info',
    noTime: true,
    sink: { write: (text) => (log += text) },
  });
  const socketPath = path.join(tree.root, 'debug.socket');
  const debug = createDebugServer({ socketPath, state: fakeDebugState(), logger });
  await debug.start();
  const http = createHttpServer({
    address: '127.0.0.1',
    port: 0,
    sources: [{ contentType: 'text/plain', metrics: () => Promise.resolve('# TYPE a counter\na 1\n') }],
    logger,
    gitWebhook: {
      startSignatureCheck: (headers) => startWebhookSignatureCheck(headers, SECRET),
      requestSync: () => true,
      logger,
    },
  });
  const { port } = await http.start();
  return {
    debug: { socketPath },
    http: { port },
    log: () => log,
    stop: async () => {
      await debug.stop();
      await http.stop();
      tree.remove();
    },
  };
}

/** Path segments: route words, module names, percent signs alone or in bad escapes, any characters. */
const segment = fc.oneof(
  fc.constantFrom(
    'module',
    'hook',
    'global',
    'queue',
    'list',
    'values',
    'config',
    'render',
    'diff',
    'snapshots',
    'patches',
    'resource-monitor',
    'git',
    'status',
    'discovery',
    'echo-server',
    'cert-manager',
    'metrics',
    'healthz',
    'readyz',
    'hooks',
    '%',
    '%ff',
    '%E0%A4%A',
    '%00',
    '..',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }).map((text) => encodeURIComponent(text)),
  fc.string({
    unit: fc.constantFrom('%', 'a', 'F', '0', 'E', '/', '[', ':', '?', '#', '&', '='),
    maxLength: 10,
  }),
);

/** Percent signs that do not make UTF-8: a lone `%`, a bad hex pair, a cut multi-byte sequence. */
const badEscape = fc.constantFrom('%', '%ff', '%E0%A4%A', '%C3', '%zz', '%%', 'a%2', '%F0%9F%98');

/** A module or hook name: often a bad escape, since decoding it is where a route can fail. */
const name = fc.oneof(segment, badEscape);

/** The routes that take a name. */
const namedRoute = fc.oneof(
  fc
    .tuple(
      name,
      fc.constantFrom('values', 'config', 'patches', 'render', 'diff', 'resource-monitor', 'snapshots'),
    )
    .map(([module, route]) => `/module/${module}/${route}`),
  name.map((hook) => `/hook/${hook}/snapshots`),
);

const target = fc.oneof(
  { weight: 2, arbitrary: namedRoute },
  fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
  fc
    .tuple(
      fc.array(segment, { maxLength: 4 }),
      fc.constantFrom('?format=json', '?format=xml', '?global=maybe', '?showEmpty=', '.json', '.yaml', ''),
    )
    .map(([parts, tail]) => `/${parts.join('/')}${tail}`),
  fc.constantFrom(
    '//[',
    '//x:99999/',
    '*',
    'http://x:99999/',
    'http://[::1/',
    '/hooks/git',
    '/hooks/git?x=%',
    '',
  ),
);

/** Mostly methods the routes take, so that requests reach them; now and then one Node refuses. */
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 2, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE') },
  { weight: 1, arbitrary: fc.constantFrom('BREW', 'get', 'G T') },
);

/** Mostly well-formed headers (the signature headers among them); now and then a bad or huge one. */
const header = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(
      fc.constantFrom(
        'x-hub-signature-256',
        'x-gitlab-token',
        'x-gitea-signature',
        'x-forgejo-signature',
        'x-signature',
        'content-type',
        'transfer-encoding',
        'expect',
        'x-anything',
      ),
      fc.oneof(
        fc.constantFrom('sha256=', 'chunked', '100-continue', SECRET, ''),
        fc.string({ unit: fc.constantFrom('a', '0', '=', ' ', ';', '%'), maxLength: 80 }),
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 20 }),
      fc.string({ unit: 'binary-ascii', maxLength: 40 }),
    ),
  },
  { weight: 1, arbitrary: fc.constant(['x-huge', 'a'.repeat(20_000)] as const) },
);

const body = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from('{"ref":"refs/heads/main"}')),
);

interface RawRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** Sign the body right (to reach the webhook's accepting path too). */
  readonly sign: boolean;
  /** Declare a length other than the body's. */
  readonly lengthDelta: number;
}

const rawRequest: fc.Arbitrary<RawRequest> = fc.record({
  method,
  target,
  headers: fc.array(header, { maxLength: 4 }),
  body,
  sign: fc.boolean(),
  lengthDelta: fc.constantFrom(0, 0, 0, -1, 5, 2_000_000),
});

function encode(request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, 'host: fuzz'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.sign)
    lines.push(
      `x-hub-signature-256: sha256=${createHmac('sha256', SECRET).update(request.body).digest('hex')}`,
    );
  lines.push(
    `content-length: ${String(Math.max(0, request.body.length + request.lengthDelta))}`,
    'connection: close',
  );
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), request.body]);
}

/**
 * Throws one request at each server: neither answers 5xx (or closes without answering a request
 * it read whole), neither logs an error or a stack, and each still answers a plain request after.
 */
export function serversAnswerBadInputWith4xx(servers: FuzzedServers) {
  return fc.asyncProperty(rawRequest, async (request) => {
    const raw = encode(request);
    for (const [name, where, alive] of [
      ['debug socket', servers.debug, 'GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'],
      ['HTTP port', servers.http, 'GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'],
    ] as const) {
      const before = servers.log().length;
      // A declared length longer than what is sent leaves the server waiting: the answer may not come.
      const answer = await rawExchange(where, raw, request.lengthDelta > 0 ? 300 : 10_000);
      assert.ok(
        answer.status < 500,
        `${name}: ${String(answer.status)} for ${JSON.stringify(raw.subarray(0, 300).toString('latin1'))}`,
      );
      if (request.lengthDelta <= 0) assert.notEqual(answer.status, 0, `${name}: no answer`);
      const logged = servers.log().slice(before);
      assert.doesNotMatch(logged, /level=error|\n\s+at /u, `${name} logged: ${logged}`);
      assert.equal((await rawExchange(where, alive)).status, 200, `${name} still answers`);
    }
  });
}
