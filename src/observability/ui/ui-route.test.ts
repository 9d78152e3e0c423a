import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { UiAccess } from './ui-access.ts';
import { createUiRoute } from './ui-route.ts';
import type { UiHook, UiModule, UiQueue, UiState } from './ui-state.ts';

const web: UiModule = {
  name: 'web',
  enabled: true,
  state: 'Ready',
  reason: 'Succeeded',
  message: '',
  lastDelivery: undefined,
  driftedObjects: [],
};
let modules: UiModule[] = [web];
const hooks: UiHook[] = [
  {
    name: 'hooks/check.sh',
    bindings: ['beforeHelm'],
    lastRuns: [
      {
        binding: 'beforeHelm',
        startedAt: '2024-05-01T10:00:00.000Z',
        durationMs: 120,
        outcome: 'exit 1',
        stdout: 'checking',
        stderr: 'web: the setting web.fixed is missing',
      },
    ],
  },
];
const queue: UiQueue = {
  name: 'main',
  tasksCount: 1,
  status: 'run first task',
  tasks: [
    {
      index: 1,
      id: 't1',
      type: 'ModuleRun',
      description: 'ModuleRun:main:web:failures 2',
      attempts: 2,
      failures: 2,
      lastError: 'hook failed: stderr: cannot connect',
    },
  ],
};
const state: UiState = {
  overview: () => ({
    counts: { Ready: 1, Progressing: 0, Failed: 0, Maintenance: 0, Disabled: 0 },
    attention: [],
    git: undefined,
    replica: { role: 'leader', version: 'test', uptimeSeconds: 1 },
    queues: [],
    running: undefined,
  }),
  modules: () => modules,
  module: (name) =>
    Promise.resolve(
      name === 'web'
        ? {
            ...web,
            phase: 'Delivered',
            waitingFor: undefined,
            health: { status: 'Current', message: '' },
            objects: [],
            events: [],
            hooks,
            requires: [],
            requiredBy: [],
          }
        : undefined,
    ),
  moduleValues: (_name, shown) => ({ replicas: 2, password: shown.secrets ? 'in clear' : '***' }),
  valueOrigins: () => [],
  timeline: (filter) =>
    [
      {
        time: '2026-12-06T03:00:00.000Z',
        module: 'web',
        kind: 'failure',
        type: 'Warning' as const,
        reason: 'HookFailed',
        note: 'x',
      },
      {
        time: '2026-12-06T02:00:00.000Z',
        module: 'db',
        kind: 'delivery',
        type: 'Normal' as const,
        reason: 'Delivered',
        note: 'y',
      },
    ].filter(
      (entry) =>
        (filter.kind === undefined || entry.kind === filter.kind) &&
        (filter.module === undefined || entry.module === filter.module),
    ),
  queues: () => ({ active: [queue], summary: {} }),
  globalHooks: () => hooks,
  releases: () =>
    Promise.resolve([
      {
        revision: 2,
        status: 'deployed',
        updated: '2024-05-01T10:00:00Z',
        description: 'Upgrade complete',
        checksum: 'b',
      },
      {
        revision: 1,
        status: 'superseded',
        updated: '2024-05-01T09:00:00Z',
        description: 'Install complete',
        checksum: 'a',
      },
    ]),
  revisionDiff: (_name, from, to) =>
    Promise.resolve(from === 1 && to === 2 ? '~ ConfigMap web/settings changed' : undefined),
  moduleDiff: () => Promise.resolve({ action: 'unchanged', text: '' }),
};
/** Tokens revoked since: they are refused from now on. */
const revoked = new Set<string>();
/**
 * A token is its own access: `viewer` may see modules but not values, `operator` also values but
 * not Secrets, `admin` everything, `nobody` nothing; `busy` cannot be checked.
 */
const access = (token: string | undefined): Promise<UiAccess> =>
  Promise.resolve(
    token !== undefined && revoked.has(token)
      ? { allowed: false, status: 401, why: 'the token was not accepted by the API server' }
      : token === 'admin' || token === 'viewer' || token === 'operator' || token === 'temporary'
        ? {
            allowed: true,
            user: token,
            canReadConfig: token === 'admin' || token === 'operator',
            canReadSecrets: token === 'admin',
          }
        : token === 'nobody'
          ? { allowed: false, status: 403, why: 'nobody may not get modules.kaddon.dev' }
          : token === 'busy'
            ? { allowed: false, status: 503, why: 'too many new tokens at once' }
            : { allowed: false, status: 401, why: 'a bearer token is required' },
  );

let server: Server;
let base: string;
let assets: string;

before(async () => {
  assets = mkdtempSync(path.join(tmpdir(), 'kaddon-ui-route-'));
  for (const name of ['index.html', 'app.js', 'app.css']) writeFileSync(path.join(assets, name), name);
  const route = createUiRoute({
    state: () => state,
    access,
    assetsDir: assets,
    changeCheckMs: 20,
    accessRecheckMs: 20,
  });
  server = createServer((request, response) => void route(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(assets, { recursive: true, force: true });
});

const get = (url: string, token?: string): Promise<Response> =>
  fetch(`${base}${url}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('the /ui route', () => {
  it('serves the same page at every view URL, with a CSP that forbids inline script and framing', async () => {
    for (const url of [
      '/ui/',
      '/ui/modules',
      '/ui/modules/web',
      '/ui/queues',
      '/ui/global-hooks',
      '/ui/timeline',
    ]) {
      const response = await get(url);
      assert.equal(response.status, 200, url);
      assert.equal(await response.text(), 'index.html');
      assert.match(
        response.headers.get('content-security-policy') ?? '',
        /script-src 'self'; .*frame-ancestors 'none'/,
      );
    }
    assert.equal(
      (await get('/ui/assets/app.js')).headers.get('content-type'),
      'text/javascript; charset=utf-8',
    );
    assert.equal((await get('/ui/assets/../../etc/passwd')).status, 404);
    assert.equal((await get('/ui/other')).status, 404);
  });

  it('answers the timeline, narrowed by kind and module', async () => {
    const all = (await (await get('/ui/api/timeline', 'viewer')).json()) as { module: string }[];
    assert.deepEqual(
      all.map((entry) => entry.module),
      ['web', 'db'],
    );
    const failures = (await (await get('/ui/api/timeline?kind=failure', 'viewer')).json()) as {
      module: string;
    }[];
    assert.deepEqual(
      failures.map((entry) => entry.module),
      ['web'],
    );
    const db = (await (await get('/ui/api/timeline?module=db', 'viewer')).json()) as { reason: string }[];
    assert.deepEqual(
      db.map((entry) => entry.reason),
      ['Delivered'],
    );
  });

  it('answers 401, 403, and values only to who may read the ConfigMap', async () => {
    assert.equal((await get('/ui/api/modules')).status, 401);
    assert.equal((await get('/ui/api/modules', 'nobody')).status, 403);
    assert.equal((await get('/ui/api/modules/web', 'viewer')).status, 200);
    assert.equal((await get('/ui/api/modules/web/values', 'viewer')).status, 403);
    assert.deepEqual(await (await get('/ui/api/modules/web/values', 'admin')).json(), {
      replicas: 2,
      password: 'in clear',
    });
    assert.deepEqual(await (await get('/ui/api/modules/web/values', 'operator')).json(), {
      replicas: 2,
      password: '***',
    });
    assert.equal((await get('/ui/api/modules/gone', 'admin')).status, 404);
    assert.equal((await get('/ui/api/modules/%E0', 'admin')).status, 400);
  });

  it('lists releases to who may get modules; diffs only to who may read the ConfigMap', async () => {
    const releases = (await (await get('/ui/api/modules/web/releases', 'viewer')).json()) as unknown[];
    assert.equal(releases.length, 2);
    for (const url of ['/ui/api/modules/web/revision-diff?from=1&to=2', '/ui/api/modules/web/diff'])
      assert.equal((await get(url, 'viewer')).status, 403, url);
    assert.deepEqual(await (await get('/ui/api/modules/web/revision-diff?from=1&to=2', 'admin')).json(), {
      from: 1,
      to: 2,
      text: '~ ConfigMap web/settings changed',
    });
    assert.equal((await get('/ui/api/modules/web/revision-diff?from=1&to=9', 'admin')).status, 404);
    assert.equal((await get('/ui/api/modules/web/revision-diff?from=x', 'admin')).status, 400);
    assert.equal((await get('/ui/api/modules/web/revision-diff', 'admin')).status, 400);
    assert.deepEqual(await (await get('/ui/api/modules/web/diff', 'admin')).json(), {
      action: 'unchanged',
      text: '',
    });
  });

  it("shows hooks' runs to who may get modules, and what the hooks wrote only to who may read the ConfigMap", async () => {
    for (const url of ['/ui/api/modules/web', '/ui/api/global-hooks']) {
      const runsOf = async (token: string): Promise<unknown> => {
        const body = (await (await get(url, token)).json()) as UiHook[] | { hooks: UiHook[] };
        return (Array.isArray(body) ? body : body.hooks)[0]?.lastRuns;
      };
      assert.deepEqual(await runsOf('admin'), hooks[0]?.lastRuns, url);
      assert.deepEqual(
        await runsOf('viewer'),
        [
          {
            binding: 'beforeHelm',
            startedAt: '2024-05-01T10:00:00.000Z',
            durationMs: 120,
            outcome: 'exit 1',
          },
        ],
        url,
      );
    }
  });

  it("shows a task's last error (a hook's stderr) only to who may read the ConfigMap", async () => {
    const tasksOf = async (token: string): Promise<unknown> =>
      ((await (await get('/ui/api/queues', token)).json()) as { active: UiQueue[] }).active[0]?.tasks;
    assert.deepEqual(await tasksOf('operator'), queue.tasks);
    assert.deepEqual(await tasksOf('viewer'), [
      {
        index: 1,
        id: 't1',
        type: 'ModuleRun',
        description: 'ModuleRun:main:web:failures 2',
        attempts: 2,
        failures: 2,
      },
    ]);
  });

  it('sends a large answer gzipped to a client that takes gzip, and plain to one that does not', async () => {
    const before = modules;
    modules = Array.from({ length: 50 }, (_, index) => ({ ...web, name: `module-${String(index)}` }));
    const raw = (encoding: string | undefined): Promise<{ encoding?: string; body: Buffer }> =>
      new Promise((resolve, reject) => {
        const headers = {
          authorization: 'Bearer admin',
          ...(encoding ? { 'accept-encoding': encoding } : {}),
        };
        httpGet(`${base}/ui/api/modules`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const got = response.headers['content-encoding'];
            resolve({ ...(got === undefined ? {} : { encoding: got }), body: Buffer.concat(chunks) });
          });
        }).on('error', reject);
      });
    try {
      const gzipped = await raw('gzip, deflate');
      const plain = await raw(undefined);
      assert.equal(gzipped.encoding, 'gzip');
      assert.equal(plain.encoding, undefined);
      const sent: unknown = JSON.parse(JSON.stringify(modules));
      assert.deepEqual(JSON.parse(gunzipSync(gzipped.body).toString('utf8')), sent);
      assert.deepEqual(JSON.parse(plain.body.toString('utf8')), sent);
      assert.ok(gzipped.body.length < plain.body.length / 5, `${String(gzipped.body.length)} bytes gzipped`);
    } finally {
      modules = before;
    }
  });

  it('changes nothing: every method but GET and HEAD is 405', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
      assert.equal(
        (await fetch(`${base}/ui/api/modules`, { method, headers: { authorization: 'Bearer admin' } }))
          .status,
        405,
      );
  });

  it('streams a change to an open page', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/ui/api/events`, {
      headers: { authorization: 'Bearer admin' },
      signal: controller.signal,
    });
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    modules = [{ ...web, state: 'Failed', reason: 'HookFailed' }];
    let text = '';
    while (!text.includes('event: changed')) text += (await reader.read()).value ?? '';
    controller.abort();
  });

  it('answers HEAD on the event stream with its headers, and ends it', async () => {
    const response = await fetch(`${base}/ui/api/events`, {
      method: 'HEAD',
      headers: { authorization: 'Bearer admin' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(await response.text(), '');
  });

  it('ends a stream once its token is refused, saying why', async () => {
    const response = await fetch(`${base}/ui/api/events`, { headers: { authorization: 'Bearer temporary' } });
    assert.equal(response.status, 200);
    revoked.add('temporary');
    // The whole body: it ends only when the server ends the stream.
    const text = await response.text();
    assert.match(text, /event: denied\ndata: \{"error":"the token was not accepted by the API server"\}/);
  });

  it('answers 503 with Retry-After to a token that cannot be checked now', async () => {
    const response = await fetch(`${base}/ui/api/overview`, { headers: { authorization: 'Bearer busy' } });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '2');
    assert.deepEqual(await response.json(), { error: 'too many new tokens at once' });
  });
});
