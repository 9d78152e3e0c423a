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
});
