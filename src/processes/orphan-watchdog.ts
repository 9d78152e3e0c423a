import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * A small shell that outlives kaddon by design: kaddon writes to its stdin the process groups it
 * starts (`+g<pgid>`, `-g<pgid>` when gone) and its temp directories (`+d<path>`, `-d<path>`). When
 * kaddon ends in any way, a SIGKILL or a crash included, the kernel closes the pipe, `read` sees
 * the end, and the shell ends the groups still listed (SIGTERM, SIGKILL 2 s later) and removes the
 * directories. dash's `kill` takes a numeric signal and a negative pid for a group.
 */
const WATCHDOG_SCRIPT = `
nl='
'
groups=' '
dirs="$nl"
while IFS= read -r line; do
  item=\${line#??}
  case $line in
    +g*) groups="$groups$item " ;;
    -g*) case $groups in *" $item "*) groups="\${groups%% $item *} \${groups#* $item }" ;; esac ;;
    +d*) dirs="$dirs$item$nl" ;;
    -d*) case $dirs in *"$nl$item$nl"*) dirs="\${dirs%%"$nl$item$nl"*}$nl\${dirs#*"$nl$item$nl"}" ;; esac ;;
  esac
done
if [ "$groups" != ' ' ]; then
  for id in $groups; do kill -15 -$id 2>/dev/null; done
  sleep 2
  for id in $groups; do kill -9 -$id 2>/dev/null; done
fi
printf '%s' "$dirs" | while IFS= read -r dir; do
  if [ -n "$dir" ]; then rm -rf -- "$dir"; fi
done
`;

/**
 * Nothing kaddon starts outlives it (docs/lifecycle.md "Bounds and timeouts"): helm, hooks and
 * enabled scripts run in process groups of their own, which a signal to kaddon does not reach, and
 * a SIGKILLed kaddon runs no code at all. Each group and temp directory is listed here while it
 * exists; when kaddon exits, the `exit` handler ends the groups (SIGTERM) and removes the
 * directories, and when it dies without running code, the watchdog shell does. Without /bin/sh
 * the `exit` handler alone remains; that is said once.
 */
class OrphanWatchdog {
  readonly #groups = new Set<number>();
  readonly #dirs = new Set<string>();
  #watchdog: ChildProcess | 'unavailable' | undefined;
  #notice: (message: string) => void;
  readonly #noticed = new Set<string>();

  constructor(notice: (message: string) => void) {
    this.#notice = notice;
  }

  /** Where the one warning goes (the operator's log); stderr until set. */
  setNotice(notice: (message: string) => void): void {
    this.#notice = notice;
  }

  /** Says `message` through the notice, once per message. */
  notifyOnce(message: string): void {
    if (this.#noticed.has(message)) return;
    this.#noticed.add(message);
    this.#notice(message);
  }

  /** Lists the process group `pgid` until the returned function is called (the group is gone). */
  watchGroup(pgid: number): () => void {
    this.#groups.add(pgid);
    this.#send(`+g${String(pgid)}`);
    return once(() => {
      this.#groups.delete(pgid);
      this.#send(`-g${String(pgid)}`);
    });
  }

  /** Lists the temp directory `dir` until the returned function is called (it was removed). */
  watchTempDir(dir: string): () => void {
    this.#dirs.add(dir);
    // A path with a line break cannot go through the line protocol; the exit handler still has it.
    if (!dir.includes('\n')) this.#send(`+d${dir}`);
    return once(() => {
      this.#dirs.delete(dir);
      if (!dir.includes('\n')) this.#send(`-d${dir}`);
    });
  }

  #send(line: string): void {
    const watchdog = this.#start();
    if (watchdog !== 'unavailable') watchdog.stdin?.write(`${line}\n`);
  }

  #start(): ChildProcess | 'unavailable' {
    if (this.#watchdog !== undefined) return this.#watchdog;
    process.on('exit', () => {
      this.#endAll();
    });
    try {
      const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
        stdio: ['pipe', 'ignore', 'ignore'],
        // A session of its own: a terminal's Ctrl-C to kaddon's group does not end it first.
        detached: true,
      });
      watchdog.on('error', (error) => {
        this.#unavailable(error.message);
      });
      watchdog.stdin.on('error', () => {
        // The watchdog is gone; the exit handler remains.
      });
      // Neither the process nor its pipe keeps kaddon running.
      watchdog.unref();
      (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
      this.#watchdog = watchdog;
    } catch (error: unknown) {
      this.#unavailable(error instanceof Error ? error.message : String(error));
    }
    return this.#watchdog ?? 'unavailable';
  }

  #unavailable(reason: string): void {
    if (this.#watchdog === 'unavailable') return;
    this.#watchdog = 'unavailable';
    this.notifyOnce(
      `the watchdog shell /bin/sh cannot be started (${reason}): if kaddon is SIGKILLed, the helm, hook and git processes it runs and its temp directories are left behind`,
    );
  }

  /** kaddon is exiting: what is still listed ends now (SIGKILL when no watchdog follows up). */
  #endAll(): void {
    const signal = this.#watchdog === 'unavailable' ? 'SIGKILL' : 'SIGTERM';
    for (const pgid of this.#groups) {
      try {
        process.kill(-pgid, signal);
      } catch {
        // The group has ended.
      }
    }
    for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}

function once(body: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    body();
  };
}

/** The one watchdog of this kaddon process. */
export const orphanWatchdog = new OrphanWatchdog((message) => {
  process.stderr.write(`kaddon: warning: ${message}\n`);
});
