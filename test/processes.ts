import { readdirSync, readFileSync } from 'node:fs';

/** A process as /proc/<pid>/stat names it (Linux). */
export interface ProcessEntry {
  readonly pid: number;
  readonly parent: number;
  readonly command: string;
}

/**
 * Every process below `root`, children before grandchildren, from the parent pid field of
 * /proc/<pid>/stat. Collect them before the parent dies: orphans are re-parented and lost to it.
 */
export function descendants(root: number): ProcessEntry[] {
  const table: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may contain spaces and parentheses: fields after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.push({
        pid: Number(entry),
        parent: Number(fields[1]),
        command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      });
    } catch {
      // The process ended while we looked.
    }
  }
  const found: ProcessEntry[] = [];
  const pending = [root];
  for (let pid = pending.shift(); pid !== undefined; pid = pending.shift())
    for (const entry of table)
      if (entry.parent === pid) {
        found.push(entry);
        pending.push(entry.pid);
      }
  return found;
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): ProcessEntry[] {
  return descendants(pid).filter((entry) => entry.parent === pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
