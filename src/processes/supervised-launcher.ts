import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { orphanWatchdog } from './orphan-watchdog.ts';

/** util-linux's setpriv and setsid, in Debian and kaddon's image. */
const SETPRIV = '/usr/bin/setpriv';
const SETSID = '/usr/bin/setsid';

/**
 * For a child a library starts (simple-git's git), which kaddon cannot put in a process group of its
 * own: this shell is started in its place, asks the kernel for SIGTERM when its parent, kaddon, dies
 * (PR_SET_PDEATHSIG through setpriv), and runs the command in a new session. On SIGTERM or SIGINT
 * (kaddon died, or the library ends the command) it ends the command's whole group: SIGTERM, then
 * SIGKILL 2 s later. Otherwise it exits with the command's status. A kaddon that died before the
 * kernel was asked is noticed by the parent pid no longer being KADDON_PARENT_PID: the command is
 * then not started.
 */
function launcherScript(command: string): string {
  const supervisor = [
    '[ -z "$KADDON_PARENT_PID" ] || [ "$PPID" = "$KADDON_PARENT_PID" ] || exit 143',
    // Each of kaddon's threads that dies sends the signal again: the first one is enough.
    'trap \'trap "" TERM INT; kill -15 -$pid 2>/dev/null; sleep 2; kill -9 -$pid 2>/dev/null; exit 143\' TERM INT',
    `${SETSID} ${command} "$@" <&0 &`,
    'pid=$!',
    'wait $pid',
  ].join('\n');
  return `#!/bin/sh\nexec ${SETPRIV} --pdeathsig TERM -- /bin/sh -c '${supervisor.replace(/'/g, `'\\''`)}' ${command} "$@"\n`;
}

export interface SupervisedLauncher {
  /** What to run instead of the command. */
  readonly file: string;
  /** To add to its environment. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Writes `<dir>/<command>-supervised.sh`, to be run instead of `command`; or `command` itself where
 * setpriv or setsid is missing, said once through the watchdog's notice.
 */
export function writeSupervisedLauncher(dir: string, command: string): SupervisedLauncher {
  if (!existsSync(SETPRIV) || !existsSync(SETSID)) {
    orphanWatchdog.notifyOnce(
      `${SETPRIV} or ${SETSID} not found: a ${command} process kaddon runs is not ended if kaddon is SIGKILLed`,
    );
    return { file: command, env: {} };
  }
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${command}-supervised.sh`);
  writeFileSync(file, launcherScript(command));
  chmodSync(file, 0o700);
  return { file, env: { KADDON_PARENT_PID: String(process.pid) } };
}
