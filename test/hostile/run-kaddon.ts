import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';

const run = promisify(execFile);

export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What kaddon left in its TMPDIR (tsx's compile cache aside). */
  readonly leftInTmp: readonly string[];
}

/**
 * `kaddon ARGS` as a user runs it, in a TMPDIR of its own that must be empty afterwards, with a
 * time limit: a hang fails the test instead of stalling it.
 */
export async function kaddon(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'kaddon-hostile-tmp-'));
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), ...args], {
      env: { ...process.env, TMPDIR: tmp, ...env },
      timeout: 30_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr, leftInTmp: leftIn(tmp) };
  } catch (error: unknown) {
    const failed = error as { code?: number; killed?: boolean; stdout?: string; stderr?: string };
    assert.ok(!failed.killed, `kaddon ${args.join(' ')} did not finish within 30 s`);
    return {
      code: failed.code ?? -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
      leftInTmp: leftIn(tmp),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The entries of a TMPDIR that are kaddon's: tsx keeps its compile cache there when sources run. */
export function leftIn(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => !name.startsWith('tsx-'));
}

/** Exit 1 (never 70) with `message` on stderr, no stack trace, no temp files left. */
export function assertRefused(outcome: Outcome, message: RegExp): void {
  assert.equal(outcome.code, 1, `exit code; stderr: ${outcome.stderr}`);
  assert.match(outcome.stderr, message);
  assert.doesNotMatch(outcome.stderr, /internal error|\n\s+at /);
  assert.deepEqual(outcome.leftInTmp, [], 'no temp files left');
}
