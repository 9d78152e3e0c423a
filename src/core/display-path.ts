import path from 'node:path';
import { isWithin } from './path-containment.ts';

/**
 * A path as messages and `# source:` show it: relative to `base` (the working directory, or the
 * tree a build started from) when inside it (isWithin, the one containment check), `.` for `base`
 * itself, else absolute.
 */
export function displayPath(absolute: string, base: string): string {
  if (!isWithin(base, absolute)) return absolute;
  return path.relative(base, absolute) || '.';
}
