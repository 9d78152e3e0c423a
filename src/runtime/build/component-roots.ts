import { existsSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS } from '../../core/setting-names.ts';
import { packageRoot } from '../../processes/package-root.ts';

/** The components that ship with kaddon: `components/` at the root of its package. */
const builtinComponents = path.join(packageRoot(import.meta.url), 'components');

/** Shared component folders: the flag, $KADDON_COMPONENTS_PATH, `components/` beside each modules dir, then kaddon's own. */
export function componentRoots(flag: string | undefined, modulesDirs: readonly string[]): string[] {
  const candidates = [
    ...splitPaths(flag ?? ''),
    ...SETTINGS.componentsPath.env.flatMap((name) => splitPaths(process.env[name] ?? '')),
    ...modulesDirs.map((dir) => path.join(dir, '..', 'components')),
    builtinComponents,
  ];
  return [...new Set(candidates.map((dir) => path.resolve(dir)))].filter((dir) => existsSync(dir));
}

export function splitPaths(value: string): string[] {
  return value.split(':').filter((part) => part !== '');
}
