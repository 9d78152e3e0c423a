import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import { scrapeMetrics } from '../operator/metrics-scrape.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { signInUsers } from './ui-users.ts';

/**
 * The status page against hostile traffic (docs/ui.md "Limits"): floods of unauthenticated
 * requests, a viewer asking for many modules' releases, a token revoked under an open stream, and a
 * SIGTERM in the middle of a flood; the real operator and API server throughout.
 */
const NAMESPACE = 'kaddon-ui-flood';
const MODULES = Array.from({ length: 12 }, (_, index) => `mod${String(index + 1).padStart(2, '0')}`);
const FLOOD = 2000;
const FLOOD_CONCURRENCY = 100;

let env: OperatorEnvironment;
let operator: E2eOperator;
let base: string;
const tokens: Record<'viewer' | 'leaving', string> = { viewer: '', leaving: '' };

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'ui-flood' });
  MODULES.forEach((name, index) => {
    env.tree.write(`modules/${String(index + 10)}-${name}`, {
      ...stateModuleFiles(NAMESPACE, name, '  a: "1"\n'),
      'values.yaml': `${name}Enabled: true\n`,
    });
  });
  await grantTokens();
  operator = env.startOperator({
    // SIGTERM's test says whether the operator exits by itself: execa kills it only after this.
    forceKillAfterDelay: 25_000,
    // Nothing but the page lists the releases' Secrets while it is counted.
    extraEnv: { KADDON_DRIFT_MODE: 'off' },
  });
  base = `http://127.0.0.1:${String(env.port)}`;
  await waitReady(operator, env.port, 180_000);
});

after(() => env.stop());

/** `viewer` may get modules.kaddon.dev, and so may `leaving`, whose ServiceAccount a test deletes. */
async function grantTokens(): Promise<void> {
  Object.assign(
    tokens,
    await signInUsers(env.api, NAMESPACE, { viewer: { modules: true }, leaving: { modules: true } }),
  );
}

/** A request and its whole answer; one not finished in 60 s fails (an answer never ended). */
async function get(
  apiPath: string,
  token: string,
  method = 'GET',
): Promise<{ status: number; retryAfter: string | null; body: string }> {
  const response = await fetchAgain(`${base}${apiPath}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(60_000),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  };
}

/**
 * fetch, sent again (up to three times) when the server closed an idle kept-alive connection as it
 * was reused: a race of two loaded processes, not an answer. A request not answered is not retried.
 */
async function fetchAgain(url: string, init: RequestInit, attempts = 3): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error: unknown) {
    const cause = error instanceof Error ? error.cause : undefined;
    // The server closed a kept-alive connection as the client reused it: closed before the
    // request was read ('other side closed'), or reset under it (ECONNRESET, seen at load 18).
    const closed =
      cause instanceof Error &&
      (cause.name === 'SocketError' || (cause as NodeJS.ErrnoException).code === 'ECONNRESET');
    if (!closed || attempts <= 1) throw error;
    return fetchAgain(url, init, attempts - 1);
  }
}

/** The sum of `name`'s samples (whatever the metrics prefix) whose labels contain every one of `parts`. */
function sumOf(metrics: string, name: string, parts: readonly string[]): number {
  let sum = 0;
  for (const match of metrics.matchAll(new RegExp(`^\\w*${name}\\{([^}]*)\\} (\\S+)$`, 'gmu')))
    if (parts.every((part) => (match[1] ?? '').includes(part))) sum += Number(match[2]);
  return sum;
}

/** Requests the operator sent to the API server, by the URL their latency is counted under. */
async function requestsTo(verb: string, url: string): Promise<number> {
  return sumOf(await scrapeMetrics(env.port), 'kubernetes_client_request_latency_seconds_count', [
    `verb="${verb}"`,
    `${url}"`,
  ]);
}

/** `count` requests with random tokens, `FLOOD_CONCURRENCY` at a time; resolves with each status. */
async function flood(count: number, path = '/ui/api/overview'): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      const { status, retryAfter } = await get(path, randomBytes(24).toString('base64url'));
      if (status === 503) assert.equal(retryAfter, '2');
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, worker));
  return statuses;
}

async function readyReason(module: string): Promise<unknown> {
  const object = await env.api.request('GET', `/apis/kaddon.dev/v1alpha1/modules/${module}`);
  const status = isJsonObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return conditions.find((condition) => condition.type === 'Ready')?.reason;
}

/** Edits the ConfigMap to switch `module` on or off, and resolves with the ms until its status says so. */
async function switchModule(module: string, enabled: boolean): Promise<number> {
  const startedAt = performance.now();
  await setOperatorConfig(env.api, NAMESPACE, { [`${module}Enabled`]: String(enabled) });
  await eventually(
    operator,
    `module ${module} ${enabled ? 'enabled' : 'Disabled'} in its status`,
    async () => {
      const reason = await readyReason(module);
      return (reason === 'Disabled') === !enabled && reason !== undefined ? true : undefined;
    },
  );
  return performance.now() - startedAt;
}

describe('the status page under hostile traffic', () => {
  it("reads each module's releases once however often 12 of them are asked for, with a token that may only get modules", async () => {
    const secretLists = (): Promise<number> =>
      requestsTo('GET', '/api/v1/namespaces/%7Bnamespace%7D/secrets?labelSelector=%7Bvalue%7D');
    const before = await secretLists();
    // Five rounds over the 12 modules at once: more modules than any small set of kept histories.
    const answers = await Promise.all(
      Array.from({ length: 5 }).flatMap(() =>
        MODULES.map((name) => get(`/ui/api/modules/${name}/releases`, tokens.viewer)),
      ),
    );
    assert.deepEqual(new Set(answers.map(({ status }) => status)), new Set([200]));
    for (const { body } of answers) assert.equal((JSON.parse(body) as unknown[]).length, 1);
    const lists = (await secretLists()) - before;
    // One list a module; a second only if the 10 s of its first ran out meanwhile.
    assert.ok(lists >= MODULES.length && lists <= 2 * MODULES.length, `${String(lists)} Secret lists`);
  });

  it('answers HEAD on the event stream with its headers and ends it', async () => {
    const head = await get('/ui/api/events', tokens.viewer, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('ends an open stream once its token is revoked', async () => {
    const response = await fetch(`${base}/ui/api/events`, {
      headers: { authorization: `Bearer ${tokens.leaving}` },
    });
    assert.equal(response.status, 200);
    await env.api.request('DELETE', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/leaving`);
    const stopped = new AbortController();
    const deadline = setTimeout(() => {
      stopped.abort();
    }, 90_000);
    // The body ends only when the operator ends the stream.
    const text = await Promise.race([
      response.text(),
      new Promise<string>((resolve) => {
        stopped.signal.addEventListener('abort', () => {
          resolve('open');
        });
      }),
    ]);
    clearTimeout(deadline);
    assert.match(text, /event: denied\ndata: \{"error":"the token was not accepted by the API server"\}/);
    assert.equal((await get('/ui/api/overview', tokens.leaving)).status, 401);
  });

  it("keeps the operator's own work going through a flood of 2,000 requests with random tokens", async (t) => {
    assert.equal((await get('/ui/api/overview', tokens.viewer)).status, 200);
    const quiet = await switchModule('mod01', false);
    const reviewsBefore = await requestsTo('POST', '/apis/authentication.k8s.io/v1/tokenreviews');
    let flooding = true;
    const during: number[] = [];
    const viewer: number[] = [];
    // The ConfigMap edits and the viewer's requests go on while the flood does.
    const edits = (async () => {
      for (let enabled = true; flooding; enabled = !enabled) {
        during.push(await switchModule('mod01', enabled));
        viewer.push((await get('/ui/api/overview', tokens.viewer)).status);
      }
    })();
    const statuses = await flood(FLOOD).finally(() => {
      flooding = false;
    });
    await edits;
    const reviews = (await requestsTo('POST', '/apis/authentication.k8s.io/v1/tokenreviews')) - reviewsBefore;
    t.diagnostic(
      `ConfigMap edit to Module status: ${quiet.toFixed(0)} ms quiet; during the flood ${during.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    t.diagnostic(
      `flood answers: ${JSON.stringify(Object.fromEntries(statuses))}; TokenReviews sent: ${String(reviews)}`,
    );
    assert.ok(during.length > 0);
    assert.deepEqual([...new Set(viewer)], [200]);
    // Only refusals and "busy": each refusal cost one TokenReview, each "busy" none.
    assert.deepEqual([...statuses.keys()].sort(), [401, 503]);
    assert.equal((statuses.get(401) ?? 0) + (statuses.get(503) ?? 0), FLOOD);
    const refusals = statuses.get(401) ?? 0;
    // The viewer's token may have been reviewed again once its answer's 10 s ran out.
    assert.ok(reviews >= refusals && reviews <= refusals + viewer.length, `${String(reviews)} TokenReviews`);
  });

  it('exits by itself on SIGTERM in the middle of a flood', async () => {
    const flooding = flood(FLOOD, '/ui/api/modules').catch(() => new Map<number, number>());
    await new Promise((resolve) => setTimeout(resolve, 500));
    operator.process.kill('SIGTERM');
    const result = await operator.process;
    await flooding;
    assert.equal(result.signal, undefined, operator.tail());
    assert.equal(result.exitCode, 0, operator.tail());
  });
});
