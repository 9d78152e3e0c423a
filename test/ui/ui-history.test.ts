import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, pageWithToken, tableRows } from './browser.ts';
import { buildUi } from '../../scripts/build-ui.mjs';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import {
  eventually,
  setOperatorConfig,
  startGitOperator,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { CONFIG_MAP_READ, signInUsers } from './ui-users.ts';

// What a team lead asks the page first (docs/ui.md "Timeline", docs/values.md "Where a value came
// from"): what happened in the last hour, in order, after a reload; and where each value of a
// module came from, the same on the page and from `kaddon module values --origin`.

const NAMESPACE = 'kaddon-ui-history';
const LAYERS_HOOK = 'hooks/before-helm.mjs';

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;
let browser: Browser;
let base: string;
let token = '';
let firstRevision = '';

/** A node beforeHelm hook running `body` with the module's values as `values`. */
function hook(body: string): string {
  return [
    '#!/usr/bin/env node',
    "import { readFileSync, writeFileSync } from 'node:fs';",
    'if (process.argv[2] === \'--config\') { console.log(\'{"configVersion":"v1","beforeHelm":10}\'); process.exit(0); }',
    "const values = JSON.parse(readFileSync(process.env.VALUES_PATH, 'utf8'));",
    body,
    '',
  ].join('\n');
}

function writeTree(greeting: string): void {
  repo.write({
    'modules/values.yaml': [
      'global:',
      '  clusterName: test-cluster',
      'layersEnabled: true',
      'flakyEnabled: true',
      'webEnabled: true',
      'layers:',
      '  fromTree: tree',
      '  overridden: tree',
      '',
    ].join('\n'),
    // A value in each layer: the tree's values.yaml, the module's, the schema's default, the
    // ConfigMap, a hook's patch.
    ...prefixed('modules/010-layers', {
      ...stateModuleFiles(NAMESPACE, 'layers', '  token: "$(layers.internal.token)"\n'),
      'values.yaml': 'layers:\n  fromModule: module\n  overridden: module\n',
      'openapi/config-values.yaml': [
        'type: object',
        'properties:',
        '  fromTree: {type: string}',
        '  fromModule: {type: string}',
        '  overridden: {type: string}',
        '  fromDefault: {type: string, default: schema}',
        '  fromConfigMap: {type: string}',
        '',
      ].join('\n'),
      [LAYERS_HOOK]: hook(
        "writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify([{ op: 'add', path: '/layers/internal', value: { token: 'from-hook' } }]));",
      ),
    }),
    // Fails until the ConfigMap says `flaky.fixed: true`.
    ...prefixed('modules/020-flaky', {
      ...stateModuleFiles(NAMESPACE, 'flaky', '  a: "1"\n'),
      'values.yaml': 'flaky:\n  fixed: false\n',
      'hooks/before-helm.mjs': hook(
        "if (!values.flaky.fixed) { console.error('flaky: flaky.fixed is not set'); process.exit(1); }",
      ),
    }),
    ...prefixed('modules/030-web', {
      ...stateModuleFiles(NAMESPACE, 'web', '  greeting: "$(web.greeting)"\n'),
      'values.yaml': `web:\n  greeting: ${greeting}\n`,
    }),
  });
  for (const file of [`modules/010-layers/${LAYERS_HOOK}`, 'modules/020-flaky/hooks/before-helm.mjs'])
    chmodSync(path.join(repo.root, 'work', file), 0o755);
}

function prefixed(dir: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([file, text]) => [`${dir}/${file}`, text]));
}

before(async () => {
  await buildUi(path.join(repoRoot, 'dist/ui'));
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'ui-history' });
  repo = makeGitFixture('ui-history');
  writeTree('hello');
  firstRevision = repo.commit('three modules');
  await setOperatorConfig(env.api, NAMESPACE, { layers: 'fromConfigMap: cm\n', global: 'region: eu\n' });
  ({ admin: token = '' } = await signInUsers(env.api, NAMESPACE, {
    admin: { modules: true, rules: [CONFIG_MAP_READ] },
  }));
  // A changed ConfigMap is put back within seconds, not the default 4m30s.
  operator = startGitOperator(env, repo.fileUrl, { KADDON_DRIFT_INTERVAL: '2s' });
  base = `http://127.0.0.1:${String(env.port)}`;
  await waitReady(operator, env.port, 180_000);
  browser = await launchChromium();
});

after(async () => {
  await browser.close();
  await env.stop();
  repo.remove();
});

interface Entry {
  readonly module: string;
  readonly kind: string;
  readonly reason: string;
  readonly note: string;
}

async function timeline(query = ''): Promise<Entry[]> {
  const response = await fetch(`${base}/ui/api/timeline${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(response.status, 200);
  return (await response.json()) as Entry[];
}

async function until(what: string, found: (entries: Entry[]) => boolean): Promise<void> {
  await eventually(operator, what, async () => (found(await timeline()) ? true : undefined));
}

function openPage(url: string): Promise<Page> {
  return pageWithToken(browser, `${base}${url}`, token, { viewport: { width: 1280, height: 900 } });
}

/** The rows of the page's first table, each cell's text. */
function rows(page: Page): Promise<string[][]> {
  return tableRows(page.locator('main table').first());
}

describe('the timeline and where values came from', () => {
  it('shows a scripted hour in order after a reload: a failure, its recovery, a drift correction, a Git revision delivered', async () => {
    const has = (module: string, reason: string) => (entries: Entry[]) =>
      entries.some((entry) => entry.module === module && entry.reason === reason);
    await until('flaky failed', has('flaky', 'HookFailed'));
    await setOperatorConfig(env.api, NAMESPACE, { flaky: 'fixed: true\n' });
    await until('flaky recovered', has('flaky', 'Recovered'));
    await until('web delivered', has('web', 'Delivered'));
    await env.api.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/web-state`, {
      body: { data: { greeting: 'changed by hand' } },
      contentType: 'application/merge-patch+json',
    });
    await until('the drift corrected', has('web', 'DriftCorrected'));
    writeTree('bonjour');
    const second = repo.commit('web says bonjour');
    await until('the new revision delivered', (entries) =>
      entries.some(
        (entry) => entry.module === 'web' && entry.note.includes(`from Git revision ${second.slice(0, 12)}`),
      ),
    );

    const page = await openPage('/ui/timeline');
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const shown = await rows(page);
    await page.screenshot({ path: path.join(repoRoot, 'docs/images/ui-timeline.png'), fullPage: true });
    // Newest first: each step's line above the one before it.
    const at = (module: string, match: (row: string[]) => boolean): number => {
      const index = shown.findIndex((row) => row[1] === module && match(row));
      assert.notEqual(
        index,
        -1,
        `no line for ${module} in\n${shown.map((row) => row.join(' | ')).join('\n')}`,
      );
      return index;
    };
    const failed = at('flaky', (row) => row[3] === 'HookFailed');
    const recovered = at('flaky', (row) => row[3] === 'Recovered');
    const drift = at('web', (row) => row[3] === 'DriftCorrected');
    const delivered = at(
      'web',
      (row) => row[4]?.includes(`from Git revision ${second.slice(0, 12)}`) === true,
    );
    const firstDelivery = at(
      'web',
      (row) => row[4]?.includes(`from Git revision ${firstRevision.slice(0, 12)}`) === true,
    );
    assert.ok(
      delivered < drift && drift < recovered && recovered < failed,
      JSON.stringify({ delivered, drift, recovered, failed }),
    );
    assert.ok(drift < firstDelivery);
    assert.equal(shown[failed]?.[2], 'failure');
    assert.match((shown[failed] ?? [])[4] ?? '', /flaky\.fixed is not set/u);

    // Narrowed by module and by kind, in the URL: a link can be shared.
    await page.goto(`${base}/ui/timeline?module=flaky`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.locator('main table tbody tr').first().waitFor();
    assert.deepEqual([...new Set((await rows(page)).map((row) => row[1]))], ['flaky']);
    await page.goto(`${base}/ui/timeline?kind=drift`);
    await page.locator('main table tbody tr').first().waitFor();
    assert.deepEqual([...new Set((await rows(page)).map((row) => row[3]))], ['DriftCorrected']);
    await page.context().close();
  });

  it("names each leaf's layer the same on the page and in `kaddon module values --origin`, the hook with its run", async () => {
    const expected: Record<string, [string, RegExp]> = {
      '/fromTree': ['"tree"', /^values\.yaml of the tree$/u],
      '/fromModule': ['"module"', /^the module's values\.yaml$/u],
      '/overridden': ['"module"', /^the module's values\.yaml$/u],
      '/fromDefault': ['"schema"', /^config schema default$/u],
      '/fromConfigMap': ['"cm"', /^ConfigMap$/u],
      '/internal/token': [
        '"from-hook"',
        /^hook '(?:010-layers\/)?hooks\/before-helm\.mjs', its beforeHelm run at \d{4}-\d\d-\d\dT[\d:.]+Z$/u,
      ],
    };
    const page = await openPage('/ui/modules/layers');
    await page.getByText('/internal/token').waitFor();
    await page.screenshot({ path: path.join(repoRoot, 'docs/images/ui-origins.png'), fullPage: true });
    const table = page.locator('table', { has: page.getByText('/fromConfigMap') });
    const onPage = await tableRows(table);
    await page.context().close();
    const cli = await runCliWithSocket(['module', 'values', 'layers', '--origin']);
    assert.equal(cli.code, 0, cli.stderr);
    const printed = cli.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => /^(\S+)\s+(".*?"|\S+)\s+(.*)$/u.exec(line)?.slice(1) ?? []);
    for (const [leaf, [value, origin]] of Object.entries(expected)) {
      const row = onPage.find((cells) => cells[0] === leaf);
      assert.ok(row, `the page has no row for ${leaf}: ${JSON.stringify(onPage)}`);
      assert.equal(row[1], value, leaf);
      assert.match(row[2] ?? '', origin, leaf);
      const line = printed.find((cells) => cells[0] === leaf);
      assert.ok(line, `--origin printed no line for ${leaf}: ${cli.stdout}`);
      assert.equal(line[1], value, leaf);
      assert.equal(line[2], row[2], `${leaf}: the page and --origin agree`);
    }

    // The global values, on the global hooks view and from `kaddon global values --origin`.
    const global = await openPage('/ui/global-hooks');
    await global.getByText('/region').waitFor();
    const globalRows = await tableRows(global.locator('table', { has: global.getByText('/region') }));
    await global.context().close();
    const globalCli = await runCliWithSocket(['global', 'values', '--origin']);
    assert.equal(globalCli.code, 0, globalCli.stderr);
    for (const [leaf, value, origin] of [
      ['/clusterName', '"test-cluster"', 'values.yaml of the tree'],
      ['/region', '"eu"', 'ConfigMap'],
    ] as const) {
      assert.deepEqual(
        globalRows.find((cells) => cells[0] === leaf),
        [leaf, value, origin],
      );
      assert.match(globalCli.stdout, new RegExp(`^${leaf}\\s+${value}\\s+${origin}$`, 'mu'));
    }
  });
});

/** `kaddon …` against the operator's debug socket, as on the operator's own machine. */
async function runCliWithSocket(
  argv: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = process.env.DEBUG_UNIX_SOCKET;
  process.env.DEBUG_UNIX_SOCKET = path.join(env.tree.root, 'debug.socket');
  try {
    return await runCli(argv);
  } finally {
    if (saved === undefined) delete process.env.DEBUG_UNIX_SOCKET;
    else process.env.DEBUG_UNIX_SOCKET = saved;
  }
}
