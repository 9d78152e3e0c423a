import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createCapturingLogger } from '../../observability/logger.ts';
import {
  runProcess,
  type ProcessDeps,
  type ProcessExit,
  type ProcessLimits,
  type SpawnedProcess,
} from './run-hook-process.ts';
import type { UsageProbe } from './run-hook-usage.ts';

/** These tests do not look at CPU and memory figures. */
const noUsageProbe: UsageProbe = { begin: () => ({ end: () => undefined }) };

const limits: ProcessLimits = {
  timeoutMs: 20,
  killGraceMs: 20,
  drainMs: 20,
  maxLineBytes: 8,
  maxCapturedBytes: 5,
};

const spec = { file: '/hooks/h.sh', args: [], cwd: '/', env: { PATH: '/bin' } };

/** A process that lives until `finish` is called; its signals are recorded instead of sent. */
function fakeProcess(pid: number | undefined): {
  child: SpawnedProcess;
  stdout: PassThrough;
  stderr: PassThrough;
  finish: (exit: ProcessExit) => void;
  signals: (NodeJS.Signals | 0)[];
  deps: ProcessDeps;
} {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let finish: (exit: ProcessExit) => void = () => undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    finish = (exit) => {
      stdout.end();
      stderr.end();
      resolve(exit);
    };
  });
  const child = { pid, stdout, stderr, exited };
  const signals: (NodeJS.Signals | 0)[] = [];
  let clock = 1000;
  const deps: ProcessDeps = {
    spawn: () => child,
    signalGroup: (pgid, signal) => {
      assert.equal(pgid, pid);
      signals.push(signal);
      if (signal === 'SIGKILL') finish({ exitCode: undefined, signal: 'SIGKILL', spawnError: undefined });
      return true;
    },
    now: () => (clock += 250),
    usageProbe: noUsageProbe,
  };
  return {
    child,
    stdout,
    stderr,
    finish: (exit) => {
      finish(exit);
    },
    signals,
    deps,
  };
}

describe('runProcess', () => {
  it('ends the process group on timeout: SIGTERM, then SIGKILL after the grace period', async () => {
    const fake = fakeProcess(4242);
    const outcome = await runProcess(spec, { limits, logger: createCapturingLogger() }, fake.deps);
    assert.deepEqual(fake.signals, ['SIGTERM', 0, 'SIGKILL']);
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.signal, 'SIGKILL');
    assert.equal(outcome.durationMs, 250);
  });

  it('ends the process group when the operator stops, as on timeout', async () => {
    const fake = fakeProcess(4243);
    const stopping = new AbortController();
    const logger = createCapturingLogger();
    const running = runProcess(
      spec,
      { limits: { ...limits, timeoutMs: undefined }, logger },
      { ...fake.deps, stopSignal: stopping.signal },
    );
    assert.deepEqual(fake.signals, []);
    stopping.abort();
    const outcome = await running;
    assert.deepEqual(fake.signals, ['SIGTERM', 0, 'SIGKILL']);
    assert.equal(outcome.timedOut, false);
    assert.equal(outcome.signal, 'SIGKILL');
    assert.ok(logger.entries.some((entry) => entry.msg.includes('operator is stopping')));
  });

  it('reports a process that did not start, without signalling anything', async () => {
    const fake = fakeProcess(undefined);
    const spawnError = new Error('spawn /hooks/h.sh ENOENT');
    fake.finish({ exitCode: undefined, signal: undefined, spawnError });
    const outcome = await runProcess(spec, { limits, logger: createCapturingLogger() }, fake.deps);
    assert.equal(outcome.spawnError, spawnError);
    assert.deepEqual(fake.signals, []);
  });

  it('captures stdout up to the cap and logs stderr lines cut to the line cap', async () => {
    const fake = fakeProcess(7);
    const logger = createCapturingLogger();
    const running = runProcess(
      spec,
      { limits: { ...limits, timeoutMs: undefined }, logger, captureStdout: true },
      fake.deps,
    );
    fake.stdout.write('configVersion: v1\n');
    fake.stderr.write('short\nmuch longer than eight\n');
    fake.finish({ exitCode: 0, signal: undefined, spawnError: undefined });
    const outcome = await running;
    assert.deepEqual(outcome.stdout, { text: 'confi', overflowed: true });
    assert.deepEqual(
      logger.entries.map((entry) => [entry.msg, entry.fields.output, entry.fields.truncatedBytes]),
      [
        ['short', 'stderr', undefined],
        ['much lon', 'stderr', 14],
      ],
    );
    assert.equal(outcome.stderrTail, 'short\nmuch lon');
    assert.equal(outcome.stdoutTail, '');
    assert.deepEqual(fake.signals, []);
  });

  it('keeps the last lines of logged stdout and stderr, also past the log budget', async () => {
    const fake = fakeProcess(8);
    const running = runProcess(
      spec,
      { limits: { ...limits, timeoutMs: undefined, maxLoggedBytes: 4 }, logger: createCapturingLogger() },
      fake.deps,
    );
    fake.stdout.write('one\n\ntwo\nthree');
    fake.stderr.write('warning\n');
    fake.finish({ exitCode: 0, signal: undefined, spawnError: undefined });
    const outcome = await running;
    assert.equal(outcome.stdoutTail, 'one\ntwo\nthree');
    assert.equal(outcome.stderrTail, 'warning');
  });
});
