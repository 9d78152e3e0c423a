import type { Page } from 'playwright-core';
import axe from 'axe-core';

/** axe-core's serious and critical findings on the page as it is drawn now (docs/ui.md "Accessibility"). */
export async function seriousFindings(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  return page.evaluate(async () => {
    const page = globalThis as unknown as { axe: typeof axe; document: axe.ElementContext };
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${String(violation.impact)}): ${violation.help}: ${violation.nodes
            .slice(0, 3)
            .map((node) => node.target.join(' '))
            .join(', ')}`,
      );
  });
}
