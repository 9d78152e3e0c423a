import type { Readable } from 'node:stream';
import { execa } from 'execa';
import type { Logger } from '../../observability/logger.ts';
import { gatedCommand, openGate } from '../../processes/gated-spawn.ts';
import { OutputLineSplitter, OutputTail } from './run-hook-lines.ts';
import type { HookUsage, UsageProbe } from './run-hook-usage.ts';

/** What to start: an executable and its arguments, never a shell command line. */
export interface ProcessSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment: nothing of the operator's is added. */
  readonly env: Readonly<Record<string, string>>;
}

export interface ProcessExit {
  readonly exitCode: number | undefined;
  readonly signal: NodeJS.Signals | undefined;
  /** Set when the process could not be started (ENOENT, a missing cwd, …). */
  readonly spawnError: Error | undefined;
}

export interface SpawnedProcess {
  readonly pid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles when the process has exited or failed to start; never rejects. */
  readonly exited: Promise<ProcessExit>;
  /** Its process group is gone: kaddon no longer ends it when kaddon ends (src/processes/orphan-watchdog.ts). */
  readonly groupGone?: () => void;
}

/** Starts a process in a process group of its own, stdin closed, stdout and stderr piped. */
export type SpawnProcess = (spec: ProcessSpec) => SpawnedProcess;

/** Sends `signal` to every process of the group; false when the group no longer exists. */
export type SignalProcessGroup = (pgid: number, signal: NodeJS.Signals | 0) => boolean;

export interface ProcessLimits {
  /** Undefined: no limit (addon-operator has none). */
  readonly timeoutMs: number | undefined;
  /** Between SIGTERM and SIGKILL of the process group. */
  readonly killGraceMs: number;
  /** How long the pipes may stay open after the process exited before its leftovers are ended. */
  readonly drainMs: number;
  /** Longer lines are cut in the log. */
  readonly maxLineBytes: number;
  /** The most of stdout kept when it is captured. */
  readonly maxCapturedBytes: number;
  /**
   * How much of each stream is logged; the rest is read and dropped, and one line says how much.
   * Undefined: all of it.
   */
  readonly maxLoggedBytes?: number;
}

export interface ProcessDeps {
  readonly spawn: SpawnProcess;
  readonly signalGroup: SignalProcessGroup;
  readonly now: () => number;
  readonly usageProbe: UsageProbe;
  /**
   * Aborted when the operator stops for good (SIGTERM after its grace period): a running process
   * has its group ended, SIGTERM then SIGKILL, as on timeout.
   */
  readonly stopSignal?: AbortSignal;
}

export interface ProcessOutcome {
  readonly exitCode: number | undefined;
  readonly signal: NodeJS.Signals | undefined;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly usage: HookUsage | undefined;
  readonly spawnError: Error | undefined;
  /** The last lines of stderr, for error messages and the status page. */
  readonly stderrTail: string;
  /** The last lines of stdout when it is logged (empty when captured), for the status page. */
  readonly stdoutTail: string;
  /** Captured stdout (only with `captureStdout`), and whether it exceeded the cap. */
  readonly stdout: { readonly text: string; readonly overflowed: boolean } | undefined;
}

/** How much of the end of each stream is kept (docs/hooks.md "What of a hook's output leaves the operator"). */
const TAIL_CHARS = 2048;

/**
 * Runs one process to its end: logs stdout and stderr line by line as they arrive (stdout is
 * captured instead with `captureStdout`), ends the whole process group on timeout, SIGTERM then
 * SIGKILL, and ends leftovers that keep the pipes open after the process exited.
 */
export async function runProcess(
  spec: ProcessSpec,
  options: { limits: ProcessLimits; logger: Logger; captureStdout?: boolean },
  deps: ProcessDeps,
): Promise<ProcessOutcome> {
  const { limits, logger } = options;
  const started = deps.now();
  const child = deps.spawn(spec);
  const measurement = child.pid === undefined ? undefined : deps.usageProbe.begin(child.pid);
  const stderrTail = new OutputTail(TAIL_CHARS);
  const stdoutTail = new OutputTail(TAIL_CHARS);
  const captured = options.captureStdout ? captureStream(child.stdout, limits.maxCapturedBytes) : undefined;
  const streamsClosed = Promise.all([
    captured?.closed ?? logLines(child.stdout, 'stdout', limits, logger, stdoutTail),
    logLines(child.stderr, 'stderr', limits, logger, stderrTail),
  ]);
  const group = groupTerminator(child.pid, limits.killGraceMs, deps.signalGroup, child.groupGone);
  let timedOut = false;
  const timeout =
    limits.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          logger.error('timed out: ending its process group', { timeoutMs: limits.timeoutMs });
          group.terminate();
        }, limits.timeoutMs);
  const stop = (): void => {
    logger.error('the operator is stopping: ending its process group');
    group.terminate();
  };
  if (deps.stopSignal?.aborted === true) stop();
  else deps.stopSignal?.addEventListener('abort', stop, { once: true });

  const exit = await child.exited;
  const durationMs = deps.now() - started;
  clearTimeout(timeout);
  deps.stopSignal?.removeEventListener('abort', stop);
  if (exit.spawnError) {
    child.stdout.destroy();
    child.stderr.destroy();
  }
  await drainPipes(streamsClosed, [child.stdout, child.stderr], limits, group, logger);
  group.release();
  return {
    exitCode: exit.exitCode,
    signal: exit.signal,
    timedOut,
    durationMs,
    usage: measurement?.end(),
    spawnError: exit.spawnError,
    stderrTail: stderrTail.text(),
    stdoutTail: stdoutTail.text(),
    stdout: captured?.result(),
  };
}

/**
 * Waits for the pipes to close. A descendant that still holds them without writing for `drainMs`
 * (a `sleep 1000 &` in a bash hook) would block the queue for good, so its group is ended; a
 * stray process in another session that still holds them is cut off by destroying our ends.
 * Output that is still being read keeps the wait going: only silence counts.
 */
async function drainPipes(
  closed: Promise<unknown>,
  streams: readonly Readable[],
  limits: ProcessLimits,
  group: GroupTerminator,
  logger: Logger,
): Promise<void> {
  if (await closesBeforeSilence(closed, streams, limits.drainMs)) return;
  if (group.terminate()) {
    logger.error('exited, but processes it started keep its output open: ending its process group');
  }
  if (await closesBeforeSilence(closed, streams, limits.killGraceMs + limits.drainMs)) return;
  for (const stream of streams) stream.destroy();
  await closed;
}

/** True when `closed` settles; false once no stream has had data for `silenceMs`. */
function closesBeforeSilence(
  closed: Promise<unknown>,
  streams: readonly Readable[],
  silenceMs: number,
): Promise<boolean> {
  return new Promise((resolve) => {
    let timer = setTimeout(finish, silenceMs, false);
    function restart(): void {
      clearTimeout(timer);
      timer = setTimeout(finish, silenceMs, false);
    }
    function finish(result: boolean): void {
      clearTimeout(timer);
      for (const stream of streams) stream.off('data', restart);
      resolve(result);
    }
    for (const stream of streams) stream.on('data', restart);
    void closed.then(() => {
      finish(true);
    });
  });
}

interface GroupTerminator {
  /**
   * SIGTERM to the group now, SIGKILL after the grace period if any member is left; false if already done.
   */
  terminate(): boolean;
  /**
   * The run is over: a pending SIGKILL still fires, but no longer keeps the event loop alive; the
   * group counts as gone once it has fired.
   */
  release(): void;
}

function groupTerminator(
  pid: number | undefined,
  graceMs: number,
  signal: SignalProcessGroup,
  groupGone: () => void = () => undefined,
): GroupTerminator {
  let killTimer: NodeJS.Timeout | undefined;
  let killed = false;
  return {
    terminate() {
      if (pid === undefined || killTimer !== undefined) return false;
      if (!signal(pid, 'SIGTERM')) return false;
      // Not cleared when the run ends: a member that ignores SIGTERM must not outlive the grace.
      killTimer = setTimeout(() => {
        if (signal(pid, 0)) signal(pid, 'SIGKILL');
        killed = true;
        groupGone();
      }, graceMs);
      return true;
    },
    release() {
      killTimer?.unref();
      if (killTimer === undefined || killed) groupGone();
    },
  };
}

/**
 * Logs a stream line by line up to `maxLoggedBytes`; past that it is still read (the hook must not
 * block on a full pipe) but dropped, so a hook printing without end cannot fill memory with log lines.
 */
function logLines(
  stream: Readable,
  output: 'stdout' | 'stderr',
  limits: Pick<ProcessLimits, 'maxLineBytes' | 'maxLoggedBytes'>,
  logger: Logger,
  tail?: OutputTail,
): Promise<void> {
  const budget = limits.maxLoggedBytes ?? Number.POSITIVE_INFINITY;
  let logged = 0;
  let dropped = 0;
  const splitter = new OutputLineSplitter(limits.maxLineBytes, ({ text, droppedBytes }) => {
    if (text.trim() === '') return;
    logger.info(text, droppedBytes > 0 ? { output, truncatedBytes: droppedBytes } : { output });
  });
  // The tail follows the whole output, past the log's budget too: an error names the last lines.
  const tailSplitter =
    tail &&
    new OutputLineSplitter(limits.maxLineBytes, ({ text }) => {
      if (text.trim() !== '') tail.add(text);
    });
  stream.on('data', (chunk: Buffer) => {
    tailSplitter?.push(chunk);
    const room = Math.max(budget - logged, 0);
    if (chunk.length <= room) {
      logged += chunk.length;
      splitter.push(chunk);
      return;
    }
    if (room > 0) splitter.push(chunk.subarray(0, room));
    logged += room;
    dropped += chunk.length - room;
  });
  stream.on('end', () => {
    splitter.end();
    tailSplitter?.end();
    if (dropped > 0)
      logger.error(`output over ${String(budget)} bytes not logged`, { output, droppedBytes: dropped });
  });
  return whenClosed(stream);
}

function captureStream(
  stream: Readable,
  maxBytes: number,
): { closed: Promise<void>; result: () => { text: string; overflowed: boolean } } {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  stream.on('data', (chunk: Buffer) => {
    const room = maxBytes - size;
    if (chunk.length > room) overflowed = true;
    if (room > 0) chunks.push(Buffer.from(chunk.subarray(0, room)));
    size += Math.min(room, chunk.length);
  });
  return {
    closed: whenClosed(stream),
    result: () => ({ text: Buffer.concat(chunks).toString('utf8'), overflowed }),
  };
}

function whenClosed(stream: Readable): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.once('error', () => {
      resolve();
    });
  });
}

/** The real spawner: execa without a shell, detached into a process group of its own. */
export const spawnWithExeca: SpawnProcess = (spec) => {
  const command = gatedCommand(spec.file, spec.args, spec.env);
  const subprocess = execa(command.file, [...command.args], {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    // Debian's bash reads ~/.bashrc when stdin is a pipe (docs/architecture.md "Dependencies"): the
    // gate's pipe is replaced by /dev/null before the hook starts.
    stdin: command.stdin,
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
    buffer: false,
    reject: false,
    encoding: 'buffer',
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    subprocess.once('exit', (code, signal) => {
      resolve({ exitCode: code ?? undefined, signal: signal ?? undefined, spawnError: undefined });
    });
    subprocess.once('error', (error) => {
      if (subprocess.pid === undefined)
        resolve({ exitCode: undefined, signal: undefined, spawnError: error });
    });
  });
  // With `reject: false` the promise only reports what the listeners above already saw.
  void subprocess.then(() => undefined);
  const groupGone = subprocess.pid === undefined ? undefined : openGate(command, subprocess);
  return {
    pid: subprocess.pid,
    stdout: subprocess.stdout,
    stderr: subprocess.stderr,
    exited,
    ...(groupGone === undefined ? {} : { groupGone }),
  };
};

/** The real group signal: a negative pid addresses the process group (kill(2)). */
export const signalProcessGroup: SignalProcessGroup = (pgid, signal) => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};
