import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { runCli } from '../../run-cli.ts';
import { makeTempTree } from '../../temp-tree.ts';
import { printedValue, rowKey, tableResource } from './scalar-table.ts';

interface Recorded {
  readonly yaml: string;
  readonly printed?: string;
  readonly error?: true;
}

const recorded = JSON.parse(readFileSync(new URL('recorded.json', import.meta.url), 'utf8')) as {
  rows: Recorded[];
};

/** Rows kaddon does not reproduce, each listed in docs/differences-from-kustomize.md "Scalars". */
const DIFFERENCES = new Map([
  ...[
    '9223372036854775807',
    '-9223372036854775808',
    '-9223372036854775809',
    '18446744073709551615',
    '0xFFFFFFFFFFFFFFFF',
  ].map((yaml) => [yaml, 'an integer beyond 2^53 loses digits in a JavaScript number'] as const),
  ['"\\u0085"', 'kustomize turns a NEL character into a space'],
  ['"\\ufeffx"', 'go-yaml v2 escapes the character after a byte-order mark'],
]);

describe('plain scalars are typed and printed as kubectl kustomize does (recorded.json)', () => {
  const tree = makeTempTree('scalar-table');
  after(() => {
    tree.remove();
  });

  for (const [index, row] of recorded.rows.entries()) {
    const skip = DIFFERENCES.get(row.yaml) ?? false;
    it(`${row.yaml} → ${row.error ? 'an error' : JSON.stringify(row.printed)}`, { skip }, async () => {
      const dir = tree.write(rowKey(index), {
        'kustomization.yaml': 'resources:\n- table.yaml\n',
        'table.yaml': tableResource([{ key: rowKey(0), yaml: row.yaml }]),
      });
      const run = await runCli(['kustomize', dir]);
      if (row.error) {
        assert.equal(run.code, 1, run.stdout);
        assert.match(run.stderr, /table\.yaml/);
        return;
      }
      assert.equal(run.code, 0, run.stderr);
      assert.equal(printedValue(run.stdout, rowKey(0)), row.printed);
    });
  }
});
