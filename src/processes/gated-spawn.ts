import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { findExecutable } from './find-executable.ts';
import { orphanWatchdog } from './orphan-watchdog.ts';

const SHELL = '/bin/sh';

/**
 * Waits for one line `go` on stdin, then becomes the command (`exec`, same pid, so the same process
 * group) with /dev/null as stdin. A kaddon that dies before it writes `go` closes the pipe: `read`
 * sees the end and the command is never started.
 */
const GATE = 'IFS= read -r go || exit 143\n[ "$go" = go ] || exit 143\n';
/** The shell exports PWD; a command whose environment has none (a hook's) must not get one. */
const UNSET_PWD = 'unset PWD\n';

/** How to spawn a command through the gate: run `file` with `args` and this `stdin`. */
export interface GatedCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly stdin: 'pipe' | 'ignore';
  /** Whether the gate is in front: `openGate` must then be called once the pid is known. */
  readonly gated: boolean;
  /** Whether the command reads its stdin from the pipe (after the gate's line). */
  readonly keepsStdin: boolean;
}

/**
 * The spawn of a process group kaddon must not leave behind (docs/lifecycle.md "Bounds and
 * timeouts"). The group is listed with the orphan watchdog by its pid, which exists only once the
 * spawn has returned; a kaddon SIGKILLed in between would leave a command the watchdog never heard
 * of (helm ignores SIGTERM while it renders, and ran on for hours). So the command is started
 * behind a gate: a shell that waits until kaddon has listed its group, and then `exec`s the
 * command. A command that cannot be run (not found, not executable), or a machine without
 * /bin/sh, is spawned as is: it starts no process, or there is no watchdog either, and the error
 * stays the spawn's own. `env` is the whole environment the command gets (its PATH finds it).
 * With `keepStdin` the command reads on from the pipe after `go` (otherwise its stdin is /dev/null).
 */
export function gatedCommand(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly keepStdin?: boolean } = {},
): GatedCommand {
  const keepsStdin = options.keepStdin === true;
  if (!existsSync(SHELL) || findExecutable(file, env.PATH) === undefined)
    return { file, args, stdin: keepsStdin ? 'pipe' : 'ignore', gated: false, keepsStdin };
  // `read` takes a pipe byte by byte: what follows `go` is left for the command.
  const script = `${env.PWD === undefined ? UNSET_PWD : ''}${GATE}exec "$0" "$@"${keepsStdin ? '' : ' </dev/null'}\n`;
  return { file: SHELL, args: ['-c', script, file, ...args], stdin: 'pipe', gated: true, keepsStdin };
}

/**
 * Lists the spawned group with the watchdog, then lets the command start. Returns what to call
 * when the group is gone. The listing is written before `go`, both by this one process, so the
 * command never runs unlisted.
 */
export function openGate(
  command: GatedCommand,
  subprocess: { readonly pid?: number | undefined; readonly stdin: Writable | null },
): () => void {
  const groupGone =
    subprocess.pid === undefined ? () => undefined : orphanWatchdog.watchGroup(subprocess.pid);
  if (command.gated && subprocess.stdin !== null) {
    subprocess.stdin.on('error', () => {
      // The gate ended before reading (the spawn failed or it was killed): nothing to start.
    });
    if (command.keepsStdin) subprocess.stdin.write('go\n');
    else subprocess.stdin.end('go\n');
  }
  return groupGone;
}
