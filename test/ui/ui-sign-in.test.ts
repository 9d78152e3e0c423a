import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { buildUi } from '../../scripts/build-ui.mjs';
import { repoRoot } from '../repo-root.ts';
import {
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { startOidcProvider, type OidcProvider, type ProviderUser } from '../oidc/oidc-provider.ts';
import { CONFIG_MAP_READ } from './ui-users.ts';
import { seriousFindings } from './axe-findings.ts';
import { UiSessions } from '../../src/observability/ui/ui-session.ts';

// Sign-in to the status page through a real OpenID Connect provider (test/oidc: zitadel/oidc's
// example provider) in Debian's chromium, against a real API server whose RBAC names the
// provider's groups (docs/ui.md "Signing in").

const NAMESPACE = 'kaddon-sign-in';
const CLIENT_ID = 'kaddon-ui';
const CLIENT_SECRET = 'client-secret-4f1d';
const SESSION_KEY = 'a-session-key-of-at-least-32-bytes-for-the-test';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const USERS: readonly ProviderUser[] = [
  { id: 'ann', password: 'ann-password', groups: ['platform-admins'] },
  { id: 'bob', password: 'bob-password', groups: ['platform-viewers'] },
  { id: 'eve', password: 'eve-password', groups: ['strangers'] },
];

let env: OperatorEnvironment;
let operator: E2eOperator;
let provider: OidcProvider;
let otherAudience: OidcProvider;
let browser: Browser;
let base: string;
let redirectUri: string;

before(async () => {
  await buildUi(path.join(repoRoot, 'dist/ui'));
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'sign-in' });
  env.tree.write('modules/010-web', stateModuleFiles(NAMESPACE, 'web', '  a: "1"\n'));
  env.tree.write('modules/010-web', {
    'values.yaml': 'webEnabled: true\nweb:\n  replicas: 2\n',
    // What of the sign-in's secrets a hook sees with KADDON_HOOK_ENV's default (the operator's environment).
    'hooks/secrets-seen.mjs': [
      '#!/usr/bin/env node',
      "import { writeFileSync } from 'node:fs';",
      'if (process.argv[2] === \'--config\') { console.log(\'{"configVersion":"v1","beforeHelm":10}\'); process.exit(0); }',
      'const seen = ["KADDON_UI_OIDC_CLIENT_SECRET", "KADDON_UI_SESSION_KEY"].filter((name) => process.env[name] !== undefined);',
      "writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify([{ op: 'add', path: '/web/secretsSeen', value: seen.join(',') || 'none' }]));",
      '',
    ].join('\n'),
  });
  chmodSync(path.join(env.tree.root, 'modules/010-web/hooks/secrets-seen.mjs'), 0o755);
  base = `http://127.0.0.1:${String(env.port)}`;
  redirectUri = `${base}/ui/auth/callback`;
  const providerOptions = {
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri,
    users: USERS,
    workDir: env.tree.root,
  };
  provider = await startOidcProvider(providerOptions);
  otherAudience = await startOidcProvider({ ...providerOptions, wrongAudience: 'someone-else' });
  await grantGroups();
  operator = startWith(provider.issuer);
  await waitReady(operator, env.port, 180_000);
  browser = await launchChromium();
});

after(async () => {
  await browser.close();
  await provider.stop();
  await otherAudience.stop();
  await env.stop();
});

/** Both groups may read Module objects; only `platform-admins` may get the operator's ConfigMap. */
async function grantGroups(): Promise<void> {
  const post = (collection: string, body: Record<string, unknown>): Promise<unknown> =>
    env.api.request('POST', collection, { body });
  const group = (name: string): Record<string, string> => ({
    kind: 'Group',
    name,
    apiGroup: 'rbac.authorization.k8s.io',
  });
  await post(`${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'sign-in-module-readers' },
    rules: [{ apiGroups: ['kaddon.dev'], resources: ['modules'], verbs: ['get', 'list'] }],
  });
  await post(`${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'sign-in-module-readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sign-in-module-readers' },
    subjects: [group('platform-admins'), group('platform-viewers')],
  });
  await post(`${RBAC}/namespaces/${NAMESPACE}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'config-readers' },
    rules: [CONFIG_MAP_READ],
  });
  await post(`${RBAC}/namespaces/${NAMESPACE}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'config-readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'config-readers' },
    subjects: [group('platform-admins')],
  });
}

function startWith(issuer: string, extra: Record<string, string> = {}): E2eOperator {
  return env.startOperator({
    forceKillAfterDelay: 30_000,
    extraEnv: {
      KADDON_UI_OIDC_ISSUER: issuer,
      KADDON_UI_OIDC_CLIENT_ID: CLIENT_ID,
      KADDON_UI_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      KADDON_UI_OIDC_REDIRECT_URL: redirectUri,
      KADDON_UI_OIDC_SCOPES: 'openid groups',
      KADDON_UI_SESSION_KEY: SESSION_KEY,
      ...extra,
    },
  });
}

async function restartWith(issuer: string, extra: Record<string, string> = {}): Promise<void> {
  operator.process.kill('SIGTERM');
  await operator.process.catch(() => undefined);
  operator = startWith(issuer, extra);
  await waitReady(operator, env.port, 120_000);
}

/** Opens `url`, follows the page's "Sign in" to the provider, signs in there as `user`, and comes back. */
async function signIn(user: ProviderUser, url = '/ui/'): Promise<{ context: BrowserContext; page: Page }> {
  // axe-core is injected as a script of the test's: the page's own policy forbids that, rightly.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${base}${url}`);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.locator('#username').fill(user.id);
  await page.locator('#password').fill(user.password);
  await page.locator('#password').press('Enter');
  await page.waitForURL((address) => address.href.startsWith(base), { timeout: 30_000 });
  return { context, page };
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies(`${base}/ui/`)).find((each) => each.name === 'kaddon-ui-session');
  assert.ok(cookie, 'the session cookie is set');
  return cookie.value;
}

async function getWithCookie(apiPath: string, cookie: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${apiPath}`, { headers: { cookie: `kaddon-ui-session=${cookie}` } });
  return { status: response.status, body: await response.text() };
}

describe('signing in to the status page through OpenID Connect', () => {
  it('signs a user in with the code flow and PKCE: their name in the header, values shown, a session cookie no script can read', async () => {
    const { context, page } = await signIn(USERS[0] as ProviderUser, '/ui/modules/web');
    // Back where the user started, with no code, state or token left in the address.
    await page.waitForURL(`${base}/ui/modules/web`);
    await page.locator('#who').getByText('ann').waitFor();
    await page.getByRole('heading', { name: 'Values' }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /replicas/u);
    // The client secret and the session key are the operator's: its hooks never see them.
    assert.match((await page.locator('main').textContent()) ?? '', /secretsSeen.{0,40}none/su);
    const cookie = (await context.cookies(`${base}/ui/`)).find((each) => each.name === 'kaddon-ui-session');
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/ui');
    assert.ok(cookie.expires > Date.now() / 1000 + 7 * 3600, 'the session lasts the default 8 hours');
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
      '',
    );
    const whoami = JSON.parse((await getWithCookie('/ui/api/whoami', cookie.value)).body) as Record<
      string,
      unknown
    >;
    assert.deepEqual(whoami, { user: 'ann', canReadConfig: true, canReadSecrets: false, via: 'session' });
    assert.doesNotMatch(
      operator.output(),
      new RegExp(cookie.value.slice(0, 40).replace(/[.]/gu, '\\.'), 'u'),
    );
    await context.close();
  });

  it('shows a user whose group may read modules but not the ConfigMap no values', async () => {
    const { context, page } = await signIn(USERS[1] as ProviderUser, '/ui/modules/web');
    await page.locator('#who').getByText('bob').waitFor();
    await page.getByRole('heading', { name: /^web/u }).waitFor();
    const cookie = await sessionCookie(context);
    assert.equal((await getWithCookie('/ui/api/modules/web', cookie)).status, 200);
    const values = await getWithCookie('/ui/api/modules/web/values', cookie);
    assert.equal(values.status, 403);
    assert.match(values.body, /bob may not get the operator's ConfigMap/u);
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /replicas/u);
    await context.close();
  });

  it("refuses a user whose groups may not read modules (403), with the group's name checked, not the user's", async () => {
    const { context, page } = await signIn(USERS[2] as ProviderUser);
    await page.getByText('eve may not get modules.kaddon.dev').waitFor();
    await context.close();
  });

  it('signs out: the page asks to sign in again and the old cookie is refused from then on', async () => {
    const { context, page } = await signIn(USERS[0] as ProviderUser);
    await page.locator('#who').getByText('ann').waitFor();
    const cookie = await sessionCookie(context);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await page.screenshot({ path: path.join(repoRoot, 'docs/images/ui-sign-in.png') });
    assert.deepEqual(await seriousFindings(page), [], 'the signed-out view passes axe-core');
    assert.equal(
      (await context.cookies(`${base}/ui/`)).some((each) => each.name === 'kaddon-ui-session'),
      false,
    );
    const replayed = await getWithCookie('/ui/api/overview', cookie);
    assert.equal(replayed.status, 401);
    assert.match(replayed.body, /the session has ended/u);
    await context.close();
  });

  it('refuses a tampered cookie (401), and a logout asked for by another site (403)', async () => {
    const { context } = await signIn(USERS[1] as ProviderUser);
    const cookie = await sessionCookie(context);
    await context.close();
    const [version, payload, signature] = cookie.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { d: { g: string[] } };
    claims.d.g = ['platform-admins'];
    const forged = `${version}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const refused = await getWithCookie('/ui/api/modules/web/values', forged);
    assert.equal(refused.status, 401);
    assert.match(refused.body, /not one this page made/u);
    assert.equal((await getWithCookie('/ui/api/overview', `${cookie.slice(0, -2)}xx`)).status, 401);
    const crossSite = await fetch(`${base}/ui/auth/logout`, {
      method: 'POST',
      headers: { cookie: `kaddon-ui-session=${cookie}`, origin: 'https://elsewhere.example' },
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await getWithCookie('/ui/api/overview', cookie)).status, 200);
  });

  it('refuses an expired session with a word to sign in again', async () => {
    // A session the operator's own key signed, for an admin, that ran out a minute ago: as a
    // browser holds it after KADDON_UI_SESSION_TTL (its length is ui-session.test.ts's to show).
    const lapsed = new UiSessions({
      key: Buffer.from(SESSION_KEY),
      ttlMs: 1_000,
      now: () => Date.now() - 60_000,
    });
    const cookie = lapsed.issue({ user: 'ann', groups: ['platform-admins'] })?.value ?? '';
    const answer = await getWithCookie('/ui/api/overview', cookie);
    assert.equal(answer.status, 401);
    assert.match(answer.body, /the session has expired/u);
    const context = await browser.newContext();
    const { hostname } = new URL(base);
    await context.addCookies([{ name: 'kaddon-ui-session', value: cookie, domain: hostname, path: '/ui' }]);
    const page = await context.newPage();
    await page.goto(`${base}/ui/`);
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await context.close();
  });

  it('refuses ID tokens for another audience', async () => {
    await restartWith(otherAudience.issuer);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/ui/`);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.locator('#username').fill('ann');
    await page.locator('#password').fill('ann-password');
    await page.locator('#password').press('Enter');
    await page.waitForURL((address) => address.href.startsWith(`${base}/ui/auth/callback`));
    assert.match((await page.textContent('body')) ?? '', /sign-in refused: .*aud/u);
    assert.equal(
      (await context.cookies(`${base}/ui/`)).some((each) => each.name === 'kaddon-ui-session'),
      false,
    );
    await context.close();
  });
});
