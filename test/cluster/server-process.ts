import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLines } from './run-tool.ts';

/** A long-running server of the cluster (etcd, kube-apiserver) whose output goes to a log file. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** How it ended (`exit 1`, `signal SIGKILL`, `spawn failed: …`), or undefined while it runs. */
  exitReason(): string | undefined;
  /** SIGTERM, then SIGKILL when it outlives the grace period; resolves once it is gone. */
  stop(): Promise<void>;
  /** SIGKILL without waiting, for exit and signal handlers that cannot await. */
  killNow(): void;
}

export interface ServerSpec {
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly logFile: string;
  /** Own session, not tied to this process: it keeps running after we exit (the CLI's `start`). */
  readonly detached: boolean;
  /** Its environment, when not this process's. */
  readonly env?: NodeJS.ProcessEnv;
}

const stopGraceMs = 15_000;
// PR_SET_PDEATHSIG through util-linux setpriv: the server dies even if we are SIGKILLed.
const setpriv = '/usr/bin/setpriv';

export function startServerProcess(spec: ServerSpec): ServerProcess {
  const log = openSync(spec.logFile, 'a');
  const [command, args] = commandLine(spec);
  const child = spawn(command, args, {
    stdio: ['ignore', log, log],
    detached: spec.detached,
    ...(spec.env === undefined ? {} : { env: spec.env }),
  });
  closeSync(log);
  let reason: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      reason ??= `spawn failed: ${error.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      reason = signal ? `signal ${signal}` : `exit ${code ?? '?'}`;
      resolve();
    });
  });
  if (spec.detached) child.unref();
  const pid = child.pid ?? -1;
  return {
    name: spec.name,
    pid,
    logFile: spec.logFile,
    exitReason: () => reason,
    stop: () => (reason === undefined ? stopChild(pid, exited) : Promise.resolve()),
    killNow: () => {
      if (reason === undefined) signalPid(pid, 'SIGKILL');
    },
  };
}

function commandLine(spec: ServerSpec): [string, string[]] {
  if (spec.detached || !existsSync(setpriv)) return [spec.binary, [...spec.args]];
  return [setpriv, ['--pdeathsig', 'KILL', '--', spec.binary, ...spec.args]];
}

async function stopChild(pid: number, exited: Promise<void>): Promise<void> {
  signalPid(pid, 'SIGTERM');
  const graceful = await Promise.race([exited.then(() => true), sleep(stopGraceMs, false, { ref: false })]);
  if (graceful) return;
  signalPid(pid, 'SIGKILL');
  await exited;
}

/** Stops a process this harness started in an earlier run, known only by its pid. */
export async function stopPid(pid: number, binary: string): Promise<void> {
  if (!isOurProcess(pid, binary)) return;
  signalPid(pid, 'SIGTERM');
  if (await waitForExit(pid, stopGraceMs)) return;
  signalPid(pid, 'SIGKILL');
  await waitForExit(pid, stopGraceMs);
}

/** Alive and running `binary`: a recycled pid belongs to someone else and is left alone. */
export function isOurProcess(pid: number, binary: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat) && cmdline.split('\0').includes(binary);
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  return !isAlive(pid);
}

/** Running and not a zombie (a zombie's pid answers signals until its parent reaps it). */
export function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone: nothing to stop.
  }
}

/** The end of a server's log, for error messages. */
export async function readLogTail(logFile: string, lines = 25): Promise<string> {
  try {
    return lastLines(await readFile(logFile, 'utf8'), lines);
  } catch {
    return '(no log written)';
  }
}
