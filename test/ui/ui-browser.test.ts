import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, pageWithToken } from './browser.ts';
import { buildUi } from '../../scripts/build-ui.mjs';
import { repoRoot } from '../repo-root.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { CONFIG_MAP_READ, signInUsers } from './ui-users.ts';
import { seriousFindings } from './axe-findings.ts';

const NAMESPACE = 'kaddon-ui';
const SECRET_VALUE = 'ui-test-secret-value-8c1f';
/** The vault Secret's second key, changed through the ConfigMap: the release's second revision. */
const SECOND_TOKEN = 'tok-2-xyz';
const SCREENSHOTS = path.join(repoRoot, 'docs/images');

let env: OperatorEnvironment;
let operator: E2eOperator;
let browser: Browser;
let base: string;
const tokens: Record<'nobody' | 'viewer' | 'admin', string> = { nobody: '', viewer: '', admin: '' };
/** Every body the tests received, searched for the Secret's value at the end. */
const received: string[] = [];

before(async () => {
  await buildUi(path.join(repoRoot, 'dist/ui'));
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'ui', withControllers: true });
  env.tree.write('modules/010-web', stateModuleFiles(NAMESPACE, 'web', '  a: "1"\n'));
  env.tree.write('modules/010-web', { 'values.yaml': 'webEnabled: true\n' });
  env.tree.write('modules/020-vault', {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- secret.yaml\n- deployment.yaml\n`,
    'deployment.yaml': [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: vault',
      'spec:',
      '  selector:',
      '    matchLabels: {app: vault}',
      '  template:',
      '    metadata:',
      '      labels: {app: vault}',
      '    spec:',
      '      containers:',
      '      - {name: vault, image: vault:1.15}',
      '',
    ].join('\n'),
    'secret.yaml': `apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault\nstringData:\n  password: ${SECRET_VALUE}\n  token: $(vault.token)\n`,
    'values.yaml': 'vaultEnabled: true\nvault:\n  token: tok-1-abc\n',
    'module.yaml': 'requirements:\n  modules:\n    web: "*"\n',
  });
  const broken = env.tree.write('modules/030-broken', {
    ...stateModuleFiles(NAMESPACE, 'broken', '  a: "1"\n'),
    'values.yaml': 'brokenEnabled: true\nbroken:\n  fixed: false\n',
    'hooks/before-helm.mjs': beforeHelmHook(
      "if (!values.broken.fixed) { console.error('broken: the setting broken.fixed is missing'); process.exit(1); }",
    ),
  });
  chmodSync(path.join(broken, 'hooks/before-helm.mjs'), 0o755);
  // A module whose beforeHelm takes its time once told to: its run shows in the queue view.
  const slow = env.tree.write('modules/040-slow', {
    ...stateModuleFiles(NAMESPACE, 'slow', '  a: "1"\n'),
    'values.yaml': 'slowEnabled: true\nslow:\n  seconds: 0\n',
    'hooks/before-helm.mjs': beforeHelmHook('setTimeout(() => {}, values.slow.seconds * 1000);'),
  });
  chmodSync(path.join(slow, 'hooks/before-helm.mjs'), 0o755);
  await grantTokens();
  operator = env.startOperator({ forceKillAfterDelay: 30_000 });
  base = `http://127.0.0.1:${env.port}`;
  await waitReady(operator, env.port, 180_000);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser.close();
  await env.stop();
});

/** A node beforeHelm hook (order 10) whose `body` reads the module's values as `values`. */
function beforeHelmHook(body: string): string {
  return [
    '#!/usr/bin/env node',
    "import { readFileSync } from 'node:fs';",
    'if (process.argv[2] === \'--config\') { console.log(\'{"configVersion":"v1","beforeHelm":10}\'); process.exit(0); }',
    "const values = JSON.parse(readFileSync(process.env.VALUES_PATH, 'utf8'));",
    body,
    '',
  ].join('\n');
}

/** ServiceAccounts: `nobody` without rights, `viewer` with get on modules, `admin` also on the ConfigMap. */
async function grantTokens(): Promise<void> {
  Object.assign(
    tokens,
    await signInUsers(env.api, NAMESPACE, {
      nobody: { modules: false },
      viewer: { modules: true },
      admin: { modules: true, rules: [CONFIG_MAP_READ] },
    }),
  );
}

async function get(
  apiPath: string,
  token?: string,
): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(`${base}${apiPath}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const body = await response.text();
  received.push(body);
  return { status: response.status, body, headers: response.headers };
}

async function openPage(
  token: string,
  url: string,
  options: { viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<Page> {
  const page = await pageWithToken(browser, 'about:blank', token, options);
  page.on('response', (response) => {
    if (response.headers()['content-type']?.startsWith('text/event-stream') === true) return;
    void response.text().then(
      (body) => received.push(body),
      () => undefined,
    );
  });
  await page.goto(`${base}${url}`);
  return page;
}

describe('the status page', () => {
  it("passes axe-core with no serious or critical finding in every view, at a desktop's and a phone's width", async () => {
    const views = [
      '/ui/',
      '/ui/modules',
      '/ui/modules/vault',
      '/ui/queues',
      '/ui/global-hooks',
      '/ui/timeline',
    ];
    const found: string[] = [];
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      // axe is injected as a script of the test's: the page's own policy forbids that, rightly.
      // One browser context per width, each view loaded afresh in it (a context costs seconds).
      const page = await openPage(tokens.admin, '/ui/', { viewport, bypassCSP: true });
      for (const url of views) {
        await page.goto(`${base}${url}`);
        await page.locator('#main > *').first().waitFor();
        for (const finding of await seriousFindings(page))
          found.push(`${url} at ${String(viewport.width)} px: ${finding}`);
      }
      await page.context().close();
    }
    assert.deepEqual(found, []);
  });

  it('refuses a request without a token (401) and a token without rights on modules (403)', async () => {
    assert.equal((await get('/ui/api/overview')).status, 401);
    assert.equal((await get('/ui/api/overview', 'not-a-token')).status, 401);
    assert.equal((await get('/ui/api/overview', tokens.nobody)).status, 403);
    assert.equal((await get('/ui/api/modules', tokens.nobody)).status, 403);
  });

  it('shows modules to who may get them, and values only to who may get the ConfigMap', async () => {
    const viewer = await get('/ui/api/modules/web', tokens.viewer);
    assert.equal(viewer.status, 200);
    assert.equal((JSON.parse(viewer.body) as { name: string }).name, 'web');
    assert.equal((await get('/ui/api/modules/web/values', tokens.viewer)).status, 403);
    assert.equal((await get('/ui/api/modules/web/values', tokens.admin)).status, 200);
  });

  it('is read-only and sends a Content-Security-Policy without inline script and without framing', async () => {
    const page = await get('/ui/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self';/);
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const post = await fetch(`${base}/ui/api/overview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}` },
    });
    assert.equal(post.status, 405);
  });

  it('lists the failing module first on the overview, with its hook stderr, Events and objects on its page', async () => {
    const page = await openPage(tokens.admin, '/ui/');
    await page.locator('[data-count="Failed"] b', { hasText: '1' }).waitFor({ timeout: 120_000 });
    const first = page.locator('main table').first().locator('tbody tr').first();
    assert.equal(await first.locator('td').first().textContent(), 'broken');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-overview.png'), fullPage: true });

    await page.goto(`${base}/ui/modules/broken`);
    await page.getByText('broken: the setting broken.fixed is missing').first().waitFor();
    await page.getByText('HookFailed').first().waitFor();
    // The operator's record of the module (docs/lifecycle.md "Module states"): its last run failed.
    await page.locator('.phase', { hasText: /^Failed$/u }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-module.png'), fullPage: true });

    await page.goto(`${base}/ui/modules/web`);
    await page.getByText(`${NAMESPACE}/ConfigMap/web-state`).waitFor();
    await page.locator('.phase', { hasText: /^Delivered$/u }).waitFor();

    await page.goto(`${base}/ui/modules?state=Failed`);
    await page.getByText('1 of 4 modules').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-modules.png'), fullPage: true });
    await page.context().close();
  });

  it("shows a hook's last runs, and what it wrote only to who may get the ConfigMap", async () => {
    const failedRun = (page: Page) =>
      page.locator('tr', { has: page.locator('.outcome', { hasText: /^exit 1$/u }) }).first();
    const admin = await openPage(tokens.admin, '/ui/modules/broken');
    const run = failedRun(admin);
    await run.waitFor({ timeout: 60_000 });
    assert.equal(await run.locator('td').first().textContent(), 'beforeHelm');
    await run.locator('pre.stderr', { hasText: 'broken: the setting broken.fixed is missing' }).waitFor();
    await admin.context().close();

    const viewer = await openPage(tokens.viewer, '/ui/modules/broken');
    await failedRun(viewer).waitFor();
    assert.equal(await failedRun(viewer).locator('pre').count(), 0);
    await viewer.locator('.output-restricted').waitFor();
    await viewer.context().close();
  });

  it('turns the fixed module Ready on the open page without a reload', async () => {
    const page = await openPage(tokens.admin, '/ui/modules/broken');
    await page.getByText('HookFailed').first().waitFor({ timeout: 60_000 });
    await page.locator('#live', { hasText: 'live' }).waitFor();
    await page.evaluate(() => {
      (globalThis as unknown as { marker: boolean }).marker = true;
    });
    await setOperatorConfig(env.api, NAMESPACE, { broken: 'fixed: true\n' });
    await page.locator('h2 .Ready').waitFor({ timeout: 120_000 });
    assert.equal(await page.evaluate(() => (globalThis as unknown as { marker?: boolean }).marker), true);
    await page.context().close();
  });

  it("shows each delivered object's kstatus health on the module's page", async () => {
    const page = await openPage(tokens.viewer, '/ui/modules/vault');
    const row = page.locator('tr', { hasText: `${NAMESPACE}/Deployment/vault` });
    // The Deployment rolls out on the test cluster's nodes: Current once Available.
    await row.locator('.health', { hasText: /^Current$/u }).waitFor({ timeout: 120_000 });
    await page.context().close();
  });

  it('shows a module run while it runs in the queue view, live', async () => {
    const page = await openPage(tokens.viewer, '/ui/queues');
    await page.getByText('Empty queues').waitFor();
    // A ConfigMap edit runs the module; its beforeHelm now takes 20 s.
    await setOperatorConfig(env.api, NAMESPACE, { slow: 'seconds: 20\n' });
    // The run left the main queue for the pool of module runs (docs/lifecycle.md "Parallel module runs").
    const run = page.locator('.run[data-state="running"]', { hasText: /^slow$/u });
    await run.waitFor({ timeout: 60_000 });
    assert.match((await page.locator('tr', { has: run }).textContent()) ?? '', /running/u);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-queues-running.png'), fullPage: true });
    await page.context().close();
  });

  it('shows the release history, what changed between two revisions and what a delivery would change, Secret values masked', async () => {
    await setOperatorConfig(env.api, NAMESPACE, { vault: `token: ${SECOND_TOKEN}\n` });
    const page = await openPage(tokens.admin, '/ui/modules/vault');
    const second = page.locator('tr', { has: page.locator('td', { hasText: /^2$/u }) });
    await second.getByText('deployed').waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const revisions = page.locator('pre.diff.revisions');
    await revisions.getByText(`~ Secret ${NAMESPACE}/vault changed`).waitFor();
    assert.match((await revisions.textContent()) ?? '', /^\+ {2}token: '\*\*\* \(after\)'$/mu);
    assert.match(page.url(), /\?from=1&to=2$/u, 'the comparison is in the URL');
    await page.getByRole('button', { name: 'Compare with the cluster' }).click();
    await page.locator('pre.diff.delivery', { hasText: /^No changes\.$/u }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-releases.png'), fullPage: true });
    await page.context().close();

    const diff = await get('/ui/api/modules/vault/revision-diff?from=1&to=2', tokens.admin);
    assert.equal(diff.status, 200);
    for (const value of ['tok-1-abc', SECOND_TOKEN, SECRET_VALUE])
      for (const form of [value, Buffer.from(value).toString('base64')])
        assert.equal(diff.body.includes(form), false, `${form} is not in the revisions' diff`);
    const viewer = await openPage(tokens.viewer, '/ui/modules/vault?from=1&to=2');
    await viewer.locator('.restricted', { hasText: 'Diffs are shown' }).waitFor();
    assert.equal((await get('/ui/api/modules/vault/diff', tokens.viewer)).status, 403);
    await viewer.context().close();
  });

  it('hides values from a viewer without rights on the ConfigMap', async () => {
    const page = await openPage(tokens.viewer, '/ui/modules/web');
    await page.locator('.restricted').waitFor();
    await page.context().close();
  });

  it('shows the queues and the global hooks', async () => {
    const page = await openPage(tokens.admin, '/ui/queues');
    await page.getByText('Module runs').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ui-queues.png'), fullPage: true });
    await page.goto(`${base}/ui/global-hooks`);
    await page.getByRole('heading', { name: 'Global hooks' }).waitFor();
    await page.context().close();
  });

  it('reconnects by itself after the operator restarts, and shows what changed meanwhile', async () => {
    const page = await openPage(tokens.viewer, '/ui/');
    await page.locator('#live', { hasText: 'live' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-count="Failed"] b', { hasText: '0' }).waitFor({ timeout: 60_000 });
    await page.evaluate(() => {
      (globalThis as unknown as { marker: boolean }).marker = true;
    });
    operator.process.kill('SIGTERM');
    await operator.process;
    await page.locator('#live', { hasText: 'reconnecting' }).waitFor({ timeout: 30_000 });
    await setOperatorConfig(env.api, NAMESPACE, { broken: 'fixed: false\n' });
    operator = env.startOperator({ forceKillAfterDelay: 30_000 });
    await waitReady(operator, env.port, 180_000);
    await page.locator('#live', { hasText: 'live' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-count="Failed"] b', { hasText: '1' }).waitFor({ timeout: 120_000 });
    assert.equal(await page.evaluate(() => (globalThis as unknown as { marker?: boolean }).marker), true);
    await page.context().close();
  });

  it('never sent the Secret value nor its base64 in any response', async () => {
    await eventually(
      operator,
      'vault delivered',
      async () =>
        (await get('/ui/api/modules/vault', tokens.admin)).body.includes('"Ready"') ? true : undefined,
      120_000,
    );
    await get('/ui/api/modules/vault/values', tokens.admin);
    const encoded = Buffer.from(SECRET_VALUE).toString('base64');
    for (const body of received) {
      assert.equal(body.includes(SECRET_VALUE), false);
      assert.equal(body.includes(encoded), false);
    }
  });
});
