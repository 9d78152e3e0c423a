import path from 'node:path';

/**
 * A path as messages and `# source:` show it: relative to `base` (the working directory, or the
 * tree a build started from) when inside it, `.` for `base` itself, else absolute.
 */
export function displayPath(absolute: string, base: string): string {
  const relative = path.relative(base, absolute);
  if (relative === '') return '.';
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
    ? absolute
    : relative;
}
