import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { createProcUsageProbe } from './run-hook-usage.ts';

/** Runs `command` as a child and measures it the way runProcess does: begin at spawn, end once reaped. */
async function measure(file: string, args: readonly string[]) {
  const probe = createProcUsageProbe();
  const child = execa(file, args);
  assert.ok(child.pid !== undefined);
  const measurement = probe.begin(child.pid);
  await child;
  return measurement.end();
}

describe('createProcUsageProbe (Linux /proc)', () => {
  it('sees the memory of a process that holds 64 MB, and its CPU time', async () => {
    const usage = await measure(process.execPath, [
      '-e',
      'const b = Buffer.alloc(64 * 1024 * 1024, 1); let x = 0; for (let i = 0; i < 3e7; i++) x += b[i % b.length]; setTimeout(() => {}, 50);',
    ]);
    assert.ok(usage !== undefined, '/proc is readable');
    assert.ok((usage.maxRssBytes ?? 0) >= 64 * 1024 * 1024, `max RSS ${String(usage.maxRssBytes)}`);
    assert.ok(usage.userCpuSeconds + usage.sysCpuSeconds > 0, 'CPU time counted');
  });

  it('sees a hook that runs for a few milliseconds: its first sample is taken 1 ms after the start', async () => {
    // The hook ends when its stdin closes, 5 ms after it started by the test's own timer. Node runs
    // timers in the order they expire, so the probe's 1 ms sample has run by then however late
    // both fire on a busy machine: the test does not depend on the machine being quiet.
    const probe = createProcUsageProbe();
    const child = execa('cat', [], { stdin: 'pipe', stdout: 'ignore' });
    assert.ok(child.pid !== undefined);
    const measurement = probe.begin(child.pid);
    await sleep(5);
    child.stdin.end();
    await child;
    const usage = measurement.end();
    assert.ok((usage?.maxRssBytes ?? 0) > 0, `max RSS ${String(usage?.maxRssBytes)}`);
  });
});
