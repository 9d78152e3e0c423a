import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildUi } from '../scripts/build-ui.mjs';
import { launchChromium } from '../test/ui/browser.ts';
import { OPEN_ACCESS } from '../src/observability/ui/ui-access.ts';
import { createUiRoute } from '../src/observability/ui/ui-route.ts';
import type { UiModule, UiState } from '../src/observability/ui/ui-state.ts';

/**
 * `npm run bench:ui -- [--modules 1000] [--runs 5]`: the status page's modules view in
 * Debian's chromium (docs/performance.md "Status page"). The server is the real /ui route over a
 * state of N modules held in memory, as the operator's is; prints the page's bytes (as sent and
 * gzipped) and the time from navigation to the table of every module drawn, median of the runs.
 */
const { values } = parseArgs({
  options: { modules: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const COUNT = Number(values.modules);
const STATES = ['Ready', 'Ready', 'Ready', 'Progressing', 'Failed', 'Disabled'] as const;

const modules: UiModule[] = Array.from({ length: COUNT }, (_, index) => {
  const state = STATES[index % STATES.length] ?? 'Ready';
  return {
    name: `module-${String(index).padStart(4, '0')}`,
    enabled: state !== 'Disabled',
    state,
    reason: state === 'Failed' ? 'HookFailed' : state === 'Ready' ? 'Succeeded' : state,
    message: state === 'Failed' ? "hook 'hooks/check': exited with code 1: the setting x is missing" : '',
    lastDelivery: { at: new Date().toISOString(), helmRevision: 3, gitRevision: '4f2a9c1e0b7d3a6f' },
    driftedObjects: [],
  };
});
const state: UiState = {
  overview: () => ({
    counts: { Ready: 0, Progressing: 0, Failed: 0, Maintenance: 0, Disabled: 0 },
    attention: [],
    git: undefined,
    replica: { role: 'leader', version: 'bench', uptimeSeconds: 0 },
    queues: [],
    running: undefined,
  }),
  modules: () => modules,
  module: () => Promise.resolve(undefined),
  moduleValues: () => ({}),
  valueOrigins: () => [],
  timeline: () => [],
  queues: () => ({ active: [], summary: {} }),
  globalHooks: () => [],
  releases: () => Promise.resolve([]),
  revisionDiff: () => Promise.resolve(undefined),
  moduleDiff: () => Promise.resolve({ action: 'unchanged', text: '' }),
};

const assets = mkdtempSync(path.join(tmpdir(), 'kaddon-ui-bench-'));
await buildUi(assets);
const route = createUiRoute({
  state: () => state,
  access: () => Promise.resolve(OPEN_ACCESS),
  assetsDir: assets,
});
const server = createServer((request, response) => void route(request, response));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await launchChromium();
const times: number[] = [];
let bytes = 0;
let wireBytes = 0;
for (let run = 0; run < Number(values.runs); run++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  let sent = 0;
  let wire = 0;
  page.on('response', (response) => {
    if (response.url().endsWith('/events')) return;
    void response.body().then(
      (body) => (sent += body.length),
      () => undefined,
    );
    // The body as it crossed the connection: gzipped where the server compressed it.
    void response
      .request()
      .sizes()
      .then(
        (sizes) => (wire += sizes.responseBodySize),
        () => undefined,
      );
  });
  await page.goto(`${base}/ui/modules`);
  await page
    .locator('tbody tr')
    .nth(COUNT - 1)
    .waitFor();
  times.push(await page.evaluate(() => performance.now()));
  bytes = sent;
  wireBytes = wire;
  await context.close();
}
await browser.close();
server.close();

const file = (name: string): { raw: number; gzip: number } => {
  const body = readFileSync(path.join(assets, name));
  return { raw: statSync(path.join(assets, name)).size, gzip: gzipSync(body).length };
};
const sorted = [...times].sort((a, b) => a - b);
const json = Buffer.byteLength(JSON.stringify(modules));
console.log(`modules: ${COUNT}, runs: ${times.length}`);
for (const name of ['index.html', 'app.js', 'app.css']) {
  const size = file(name);
  console.log(`${name}: ${size.raw} bytes, ${size.gzip} gzipped`);
}
console.log(`/ui/api/modules: ${json} bytes, ${gzipSync(JSON.stringify(modules)).length} gzipped`);
console.log(`bytes received by the page (last run): ${wireBytes} sent, ${bytes} once unpacked`);
console.log(
  `navigation to ${COUNT} rows drawn: median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, min ${Math.round(sorted[0] ?? 0)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms`,
);
rmSync(assets, { recursive: true, force: true });
