import path from 'node:path';

/** A path as messages and `# source:` show it: relative to `base` when inside it, else absolute. */
export function displayPath(absolute: string, base: string): string {
  const relative = path.relative(base, absolute);
  return relative === '' ? '.' : relative.startsWith('..') ? absolute : relative;
}
