import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UiSessions } from './ui-session.ts';
import { createUiSignIn } from './ui-sign-in.ts';

// The sign-in routes against a provider on loopback that publishes its metadata and never answers
// a code exchange: what the routes send, and the bound on exchanges. The whole flow through a real
// provider and browser is test/ui/ui-sign-in.test.ts.

const held: ServerResponse[] = [];
let provider: Server;
let page: Server;
let issuer = '';
let base = '';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    });
  });
}

let signInOptions: Parameters<typeof createUiSignIn>[0];

before(async () => {
  provider = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/.well-known/openid-configuration') {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}auth`,
          token_endpoint: `${issuer}token`,
          jwks_uri: `${issuer}keys`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    } else held.push(response);
  });
  issuer = `${await listen(provider)}/`;
  signInOptions = {
    issuer: new URL(issuer),
    clientId: 'kaddon',
    clientSecret: () => 'secret',
    redirectUrl: new URL('http://127.0.0.1:9650/ui/auth/callback'),
    scopes: 'openid groups',
    usernameClaim: 'sub',
    groupsClaim: 'groups',
    usernamePrefix: '',
    groupsPrefix: '',
    sessions: new UiSessions({ key: Buffer.alloc(32, 1), ttlMs: 60_000 }),
  };
  const signIn = createUiSignIn(signInOptions);
  page = createServer((request, response) => void signIn.handle(request, response));
  base = await listen(page);
});

after(() => {
  for (const response of held) response.destroy();
  provider.closeAllConnections();
  page.closeAllConnections();
  provider.close();
  page.close();
});

async function login(
  back: string,
): Promise<{ location: URL; cookie: string; flow: Record<string, unknown> }> {
  const response = await fetch(`${base}/ui/auth/login?return=${encodeURIComponent(back)}`, {
    redirect: 'manual',
  });
  assert.equal(response.status, 302);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const payload = cookie.split('=')[1]?.split('.')[1] ?? '';
  const sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    d: Record<string, unknown>;
  };
  return { location: new URL(response.headers.get('location') ?? ''), cookie, flow: sealed.d };
}

describe('the sign-in routes', () => {
  it('send the browser to the provider with PKCE, state and nonce, kept in a short signed cookie', async () => {
    const response = await fetch(`${base}/ui/auth/login`, { redirect: 'manual' });
    const cookie = response.headers.get('set-cookie') ?? '';
    assert.match(
      cookie,
      /^kaddon-ui-signin=v1\.[\w-]+\.[\w-]+; Path=\/ui\/auth; Max-Age=600; HttpOnly; SameSite=Lax$/u,
    );
    const { location, flow } = await login('/ui/');
    assert.equal(`${location.origin}${location.pathname}`, `${issuer}auth`);
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(location.searchParams.get('client_id'), 'kaddon');
    assert.equal(location.searchParams.get('redirect_uri'), 'http://127.0.0.1:9650/ui/auth/callback');
    assert.equal(location.searchParams.get('scope'), 'openid groups');
    assert.equal(location.searchParams.get('state'), flow.state);
    assert.equal(location.searchParams.get('nonce'), flow.nonce);
  });

  it('come back only to a page under /ui/ of this server', async () => {
    assert.equal((await login('/ui/modules/web?state=Failed')).flow.back, '/ui/modules/web?state=Failed');
    for (const elsewhere of [
      '//evil.example/ui/',
      'https://evil.example/ui/',
      '/ui/../../x',
      '/\\evil.example',
      '/metrics',
    ])
      assert.equal((await login(elsewhere)).flow.back, '/ui/', elsewhere);
  });

  it('refuse a callback they did not start, and answer 503 beyond 16 code exchanges at once', async () => {
    const unknown = await fetch(`${base}/ui/auth/callback?code=x&state=y`);
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /not started here/u);
    const { cookie, flow } = await login('/ui/');
    const callback = (): Promise<Response> =>
      fetch(`${base}/ui/auth/callback?code=made-up&state=${String(flow.state)}`, { headers: { cookie } });
    const hanging = Array.from({ length: 16 }, () => callback());
    while (held.length < 16) await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await callback();
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /too many sign-ins at once/u);
    for (const response of held.splice(0)) response.destroy();
    for (const answer of await Promise.all(hanging)) assert.equal(answer.status, 401);
  });

  it('sign out with a POST from the page only', async () => {
    assert.equal((await fetch(`${base}/ui/auth/logout`)).status, 405);
    const crossSite = await fetch(`${base}/ui/auth/logout`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(crossSite.status, 403);
    const own = await fetch(`${base}/ui/auth/logout`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(own.status, 204);
    assert.match(
      own.headers.get('set-cookie') ?? '',
      /^kaddon-ui-session=; Path=\/ui; Max-Age=0; HttpOnly; SameSite=Strict$/u,
    );
  });

  it('refuse at login a provider whose discovery names another issuer (502)', async () => {
    // The provider says it is http://127.0.0.1:PORT/; asked for as localhost, it is another issuer.
    const elsewhere = createUiSignIn({
      ...signInOptions,
      issuer: new URL(issuer.replace('127.0.0.1', 'localhost')),
    });
    const server = createServer((request, response) => void elsewhere.handle(request, response));
    const address = await listen(server);
    try {
      const response = await fetch(`${address}/ui/auth/login`, { redirect: 'manual' });
      assert.equal(response.status, 502);
      assert.match(await response.text(), /could not be used: .*issuer/iu);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
