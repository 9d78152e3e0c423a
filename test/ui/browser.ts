import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** The browser as docs/ui.md runs it on a closed network: Debian's chromium, nothing but the operator reached. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/** A new tab whose session storage holds `token`, as after pasting it into the page; at `url`. */
export async function pageWithToken(
  browser: Browser,
  url: string,
  token: string,
  options: { viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    bypassCSP: options.bypassCSP ?? false,
  });
  await context.addInitScript((value: string) => {
    (
      globalThis as unknown as { sessionStorage: { setItem(key: string, value: string): void } }
    ).sessionStorage.setItem('kaddon-ui-token', value);
  }, token);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

/** The text of each cell of each body row of `table`. */
export function tableRows(table: Locator): Promise<string[][]> {
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from(
          (row as unknown as { cells: { textContent: string | null }[] }).cells,
          (cell) => cell.textContent ?? '',
        ),
      ),
    );
}
