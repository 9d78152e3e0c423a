import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The components that ship with kaddon, beside src/ (or dist/) in the package. */
export const builtinComponents = fileURLToPath(new URL('../../components', import.meta.url));

/** Shared component folders: the flag, $KADDON_COMPONENTS_PATH, `components/` beside each modules dir, then kaddon's own. */
export function componentRoots(flag: string | undefined, modulesDirs: readonly string[]): string[] {
  const candidates = [
    ...splitPaths(flag ?? ''),
    ...splitPaths(process.env.KADDON_COMPONENTS_PATH ?? ''),
    ...modulesDirs.map((dir) => path.join(dir, '..', 'components')),
    builtinComponents,
  ];
  return [...new Set(candidates.map((dir) => path.resolve(dir)))].filter((dir) => existsSync(dir));
}

export function splitPaths(value: string): string[] {
  return value.split(':').filter((part) => part !== '');
}
