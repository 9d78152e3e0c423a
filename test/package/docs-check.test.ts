import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SETTINGS } from '../../src/core/setting-names.ts';
import { main } from '../../src/main.ts';
import { METRIC_CATALOG } from '../../src/observability/metrics-catalog.ts';
import { repoRoot } from '../repo-root.ts';

/**
 * The docs a user reads against the code they run: every `kaddon` command line in README.md and
 * docs/ names a command and flags that exist, spelled so; every setting of the code's table is in
 * README's settings reference; every built-in metric is in docs/observability.md.
 */
const pages = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (page: string): string => readFileSync(path.join(repoRoot, page), 'utf8');

/** Lines of shell blocks and inline code spans: where a command a user types is written. */
function codeLines(text: string): string[] {
  const blocks = [...text.matchAll(/```(?:sh|bash|shell)?\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] ?? '').split('\n'),
  );
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  return [...blocks, ...spans];
}

/**
 * `kaddon CMD rest` where a command starts: at the start of the line or after a pipe, `--`, `&&`,
 * `npx` or `node bin/kaddon.js`; the rest ends at the next pipe, `;`, `&`, `)` or comment.
 */
const INVOCATION =
  /(?:^\s*(?:\$\s+)?(?:npx\s+)?|\|\s*|--\s+|&&\s*)(?:kaddon|node bin\/kaddon\.js) ([a-z][a-z-]*)([^|;&)#]*)/g;

const helpTexts = new Map<string, string | undefined>();
async function helpOf(command: string): Promise<string | undefined> {
  if (!helpTexts.has(command)) {
    let printed = '';
    const code = await main([command, '--help'], {
      stdout: (text) => {
        printed += text;
      },
      stderr: () => undefined,
    });
    helpTexts.set(command, code === 0 ? printed : undefined);
  }
  return helpTexts.get(command);
}

describe('the docs against the code', () => {
  it('every kaddon command line in README and docs/ names a command and flags that exist', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const page of pages)
      for (const line of codeLines(read(page)))
        for (const [, command = '', rest = ''] of line.matchAll(INVOCATION)) {
          checked++;
          const help = command === 'help' ? '' : await helpOf(command);
          if (help === undefined) {
            wrong.push(`${page}: \`kaddon ${command}\` is not a command (${line.trim()})`);
            continue;
          }
          for (const [, flag = ''] of rest.matchAll(/(?:^|\s)(--?[a-zA-Z][a-zA-Z-]*)/g))
            if (!new RegExp(`(^|[\\s,[(])${flag}([\\s,=\\])]|$)`, 'm').test(help))
              wrong.push(`${page}: \`kaddon ${command}\` has no flag ${flag} (${line.trim()})`);
        }
    assert.ok(checked > 50, `only ${checked} command lines found: the pattern no longer matches the docs`);
    assert.deepEqual(wrong, []);
  });

  it("every setting of the code's table is in README's settings reference", () => {
    const readme = read('README.md');
    const missing = Object.values(SETTINGS)
      .flatMap((setting) => setting.env)
      .filter((name) => !readme.includes(`\`${name}\``));
    assert.deepEqual(missing, []);
  });

  it('every built-in metric is in docs/observability.md', () => {
    const page = read('docs/observability.md');
    const missing = Object.values(METRIC_CATALOG)
      .map((metric) => metric.name)
      .filter((name) => !page.includes(`\`${name}\``));
    assert.deepEqual(missing, []);
  });
});
