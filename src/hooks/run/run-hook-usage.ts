import { readFileSync } from 'node:fs';

/** CPU time and memory of one hook run, for the `*_hook_run_{user,sys}_cpu_seconds` and `*_max_rss_bytes` metrics. */
export interface HookUsage {
  readonly userCpuSeconds: number;
  readonly sysCpuSeconds: number;
  /** A lower bound: the largest resident set of the hook process seen while it ran; undefined if never seen. */
  readonly maxRssBytes: number | undefined;
}

interface UsageMeasurement {
  /** Called once the process has exited and been reaped. */
  end(): HookUsage | undefined;
}

export interface UsageProbe {
  begin(pid: number): UsageMeasurement;
}

/** Kernel clock ticks per second in /proc (USER_HZ, 100 on every Linux architecture kaddon runs on). */
const TICKS_PER_SECOND = 100;

interface CpuTicks {
  readonly user: number;
  readonly sys: number;
}

/**
 * Node reports no resource usage for a child (addon-operator reads it from wait4's rusage), so this
 * uses Linux /proc:
 * - CPU: the growth of this process's `cutime`/`cstime` over the run. The kernel adds a child's
 *   CPU (and that of the descendants it waited for) when the child is reaped, so this is exact
 *   while the hook is the only child that ends during the run. When runs overlap, each falls back
 *   to sampling the hook's own /proc/<pid>/stat, a lower bound.
 * - Memory: VmHWM of the hook process, sampled after 1, 2, 4 … ms and then every
 *   `sampleIntervalMs` (Node gives no exit-time figure). A hook that ends before the first sample
 *   reports none; descendants (kubectl, jq) are not seen.
 */
export function createProcUsageProbe(
  options: { procRoot?: string; sampleIntervalMs?: number } = {},
): UsageProbe {
  const procRoot = options.procRoot ?? '/proc';
  const interval = options.sampleIntervalMs ?? 200;
  const active = new Set<{ overlapped: boolean }>();
  return {
    begin(pid) {
      const state = { overlapped: active.size > 0 };
      for (const other of active) other.overlapped = true;
      active.add(state);
      const before = readChildrenTicks(`${procRoot}/self/stat`);
      let sampledTicks: CpuTicks | undefined;
      let maxRss: number | undefined;
      const sample = (): void => {
        sampledTicks = readProcessTicks(`${procRoot}/${String(pid)}/stat`) ?? sampledTicks;
        const rss = readHighWaterMark(`${procRoot}/${String(pid)}/status`);
        if (rss !== undefined) maxRss = Math.max(maxRss ?? 0, rss);
      };
      // 1, 2, 4 … ms, then every `interval`: a hook of a few milliseconds is seen too.
      let timer: NodeJS.Timeout;
      const schedule = (delay: number): void => {
        timer = setTimeout(() => {
          sample();
          schedule(Math.min(delay * 2, interval));
        }, delay);
        timer.unref();
      };
      schedule(1);
      return {
        end() {
          clearTimeout(timer);
          active.delete(state);
          const after = readChildrenTicks(`${procRoot}/self/stat`);
          const ticks =
            !state.overlapped && before && after
              ? { user: after.user - before.user, sys: after.sys - before.sys }
              : sampledTicks;
          // Without CPU figures /proc is not there to read (not Linux): report nothing.
          if (!ticks) return undefined;
          return {
            userCpuSeconds: ticks.user / TICKS_PER_SECOND,
            sysCpuSeconds: ticks.sys / TICKS_PER_SECOND,
            maxRssBytes: maxRss,
          };
        },
      };
    },
  };
}

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function readStatFields(path: string): string[] | undefined {
  const text = readOptional(path);
  if (text === undefined) return undefined;
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** cutime and cstime: fields 16 and 17 of proc(5), counted from 1 with the state as field 3. */
function readChildrenTicks(path: string): CpuTicks | undefined {
  const fields = readStatFields(path);
  return fields && ticksAt(fields, [13], [14]);
}

/** utime + cutime and stime + cstime of one process. */
function readProcessTicks(path: string): CpuTicks | undefined {
  const fields = readStatFields(path);
  return fields && ticksAt(fields, [11, 13], [12, 14]);
}

function ticksAt(
  fields: readonly string[],
  user: readonly number[],
  sys: readonly number[],
): CpuTicks | undefined {
  const sum = (indexes: readonly number[]): number =>
    indexes.reduce((total, index) => total + Number(fields[index]), 0);
  const ticks = { user: sum(user), sys: sum(sys) };
  return Number.isFinite(ticks.user) && Number.isFinite(ticks.sys) ? ticks : undefined;
}

function readHighWaterMark(path: string): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/mu.exec(readOptional(path) ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
