import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printedValue, rowKey, SCALAR_TABLE, tableResource } from './scalar-table.ts';

/**
 * `tsx test/conformance/scalars/record-scalar-table.ts`: builds every scalar of the table alone
 * with `kubectl kustomize` and writes what it printed, or that it failed, to recorded.json.
 */
interface Recorded {
  readonly yaml: string;
  readonly printed?: string;
  readonly error?: true;
}

function buildOne(dir: string, yaml: string): Recorded {
  writeFileSync(path.join(dir, 'kustomization.yaml'), 'resources:\n- table.yaml\n');
  writeFileSync(path.join(dir, 'table.yaml'), tableResource([{ key: rowKey(0), yaml }]));
  try {
    const output = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe' });
    return { yaml, printed: printedValue(output, rowKey(0)) ?? '' };
  } catch {
    return { yaml, error: true };
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'scalar-table-'));
try {
  const version = execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).trim();
  const rows = SCALAR_TABLE.map((yaml) => buildOne(dir, yaml));
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'recorded.json');
  writeFileSync(out, `${JSON.stringify({ recordedWith: version.split('\n'), rows }, null, 1)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
