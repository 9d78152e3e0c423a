import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUiAccessCheck, type AccessApi } from './ui-access.ts';

/** An API server that knows one token and what its user may get. */
function apiServer(allowed: {
  modules: boolean;
  configMap: boolean;
  secrets?: boolean;
}): AccessApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    request: (_method, apiPath, options) => {
      calls.push(apiPath);
      const spec = (options?.body as { spec: Record<string, unknown> }).spec;
      if (apiPath.endsWith('/tokenreviews'))
        return Promise.resolve({
          status:
            spec.token === 'good'
              ? { authenticated: true, user: { username: 'alice', groups: ['dev'] } }
              : {},
        });
      const resource = (spec.resourceAttributes as { resource: string }).resource;
      return Promise.resolve({
        status: {
          allowed:
            resource === 'modules'
              ? allowed.modules
              : resource === 'secrets'
                ? (allowed.secrets ?? false)
                : allowed.configMap,
        },
      });
    },
  };
}

describe('the status page access check', () => {
  const options = { namespace: 'kaddon', configMap: 'addon-operator' };

  it('answers 401 without a token or for a token the API server refuses', async () => {
    const check = createUiAccessCheck({ ...options, api: apiServer({ modules: true, configMap: true }) });
    assert.deepEqual(await check(undefined), {
      allowed: false,
      status: 401,
      why: 'a bearer token is required',
    });
    assert.equal((await check('bad')).allowed, false);
  });

  it('answers 403 to a user who may not get modules, and hides values from one who may not get the ConfigMap', async () => {
    assert.deepEqual(
      await createUiAccessCheck({ ...options, api: apiServer({ modules: false, configMap: true }) })('good'),
      {
        allowed: false,
        status: 403,
        why: 'alice may not get modules.kaddon.dev',
      },
    );
    assert.deepEqual(
      await createUiAccessCheck({ ...options, api: apiServer({ modules: true, configMap: false }) })('good'),
      {
        allowed: true,
        user: 'alice',
        canReadConfig: false,
        canReadSecrets: false,
      },
    );
  });

  it("shows values marked secret only to one who may get Secrets in the operator's namespace", async () => {
    const api = apiServer({ modules: true, configMap: true, secrets: true });
    const access = await createUiAccessCheck({ ...options, api })('good');
    assert.deepEqual(access, { allowed: true, user: 'alice', canReadConfig: true, canReadSecrets: true });
  });

  it('asks the API server once per token while the answer is kept', async () => {
    let now = 0;
    const api = apiServer({ modules: true, configMap: true });
    const check = createUiAccessCheck({ ...options, api, cacheMs: 10_000, now: () => now });
    await check('good');
    await check('good');
    assert.equal(api.calls.length, 4);
    now = 20_000;
    await check('good');
    assert.equal(api.calls.length, 8);
  });

  it("keeps a refused token's answer too: asked again, it costs no review", async () => {
    const api = apiServer({ modules: true, configMap: true });
    const check = createUiAccessCheck({ ...options, api });
    assert.equal((await check('bad')).allowed, false);
    assert.equal((await check('bad')).allowed, false);
    assert.deepEqual(api.calls, ['/apis/authentication.k8s.io/v1/tokenreviews']);
  });

  it('runs at most maxPending reviews and answers 503 to more new tokens without asking the API server', async () => {
    const started: string[] = [];
    const answers: (() => void)[] = [];
    const api: AccessApi = {
      request: (_method, apiPath) => {
        started.push(apiPath);
        return new Promise((resolve) => {
          answers.push(() => {
            resolve({ status: {} });
          });
        });
      },
    };
    const check = createUiAccessCheck({ ...options, api, maxPending: 4 });
    const asked = Array.from({ length: 50 }, (_, index) => check(`random-${String(index % 10)}`));
    assert.equal(started.length, 4);
    const answered = new Set<number>();
    asked.forEach((access, index) => void access.then(() => answered.add(index)));
    await new Promise(setImmediate);
    // Tokens 4 to 9 found every review slot taken: answered at once, before any review ends.
    assert.deepEqual(
      [...answered].sort((a, b) => a - b),
      asked.map((_, index) => index).filter((index) => index % 10 >= 4),
    );
    for (const answer of answers) answer();
    const all = await Promise.all(asked);
    assert.equal(started.length, 4);
    assert.deepEqual(
      new Set(all.map((access) => (access.allowed ? 200 : access.status))),
      new Set([401, 503]),
    );
    assert.equal(all.filter((access) => !access.allowed && access.status === 401).length, 20);
  });

  it('abandons the reviews under way when the operator stops, and answers 503 after', async () => {
    const stop = new AbortController();
    const api: AccessApi = {
      request: (_method, _path, requestOptions) =>
        new Promise((_resolve, reject) => {
          requestOptions?.signal?.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
    };
    const check = createUiAccessCheck({ ...options, api, signal: stop.signal });
    const waiting = check('good');
    stop.abort();
    assert.deepEqual(await waiting, { allowed: false, status: 503, why: 'the operator is stopping' });
    assert.equal(((await check('other')) as { status: number }).status, 503);
  });

  it('answers 503 when the API server fails the review, and asks again next time', async () => {
    let fail = true;
    const good = apiServer({ modules: true, configMap: true });
    const api: AccessApi = {
      request: (method, apiPath, requestOptions) =>
        fail
          ? Promise.reject(new Error('connection refused'))
          : good.request(method, apiPath, requestOptions),
    };
    const check = createUiAccessCheck({ ...options, api });
    const failed = await check('good');
    assert.equal(failed.allowed, false);
    assert.equal((failed as { status: number }).status, 503);
    assert.doesNotMatch((failed as { why: string }).why, /connection refused/);
    fail = false;
    assert.equal((await check('good')).allowed, true);
  });

  it("keeps a user's answer through a flood of refused tokens", async () => {
    const api = apiServer({ modules: true, configMap: true });
    const check = createUiAccessCheck({ ...options, api });
    await check('good');
    for (let index = 0; index < 1500; index += 1) await check(`random-${String(index)}`);
    const before = api.calls.length;
    assert.equal((await check('good')).allowed, true);
    assert.equal(api.calls.length, before);
  });

  it('checks a token the API server accepted before in slots of its own, whatever a flood of unknown ones holds', async () => {
    let now = 0;
    const good = apiServer({ modules: true, configMap: true });
    let stall = false;
    const api: AccessApi = {
      request: (method, apiPath, requestOptions) =>
        stall &&
        (requestOptions?.body as { spec: { token?: string } }).spec.token?.startsWith('random') === true
          ? new Promise(() => undefined)
          : good.request(method, apiPath, requestOptions),
    };
    const check = createUiAccessCheck({ ...options, api, maxPending: 2, now: () => now });
    assert.equal((await check('good')).allowed, true);
    stall = true;
    void check('random-1');
    void check('random-2');
    assert.equal(((await check('random-3')) as { status: number }).status, 503);
    now = 20_000;
    assert.equal((await check('good')).allowed, true);
  });
});
