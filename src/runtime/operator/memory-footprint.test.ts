import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const moduleUrl = new URL('./memory-footprint.ts', import.meta.url).href;

/**
 * A process that allocates as a converge does (many short-lived objects, some kept for a while)
 * and prints its young generation's size in MiB at the end; with `sized`, after sizeHeapForOperator.
 */
function youngGenerationAfterChurn(sized: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    if (${String(sized)}) (await import(${JSON.stringify(moduleUrl)})).sizeHeapForOperator();
    const kept = [];
    for (let round = 0; round < 40; round++) {
      kept.push(Array.from({ length: 20000 }, (_, i) => ({ i, text: 'item ' + i })));
      if (kept.length > 4) kept.shift();
    }
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 1048576));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  return Number(result.stdout);
}

describe('sizeHeapForOperator', () => {
  it('keeps the young generation at the size it has when called, where it grows to 32 MiB without', () => {
    assert.ok(youngGenerationAfterChurn(false) >= 16);
    // V8 starts with two 1 MiB semi-spaces; loading tsx in the child may have doubled them once.
    assert.ok(youngGenerationAfterChurn(true) <= 4);
  });
});
