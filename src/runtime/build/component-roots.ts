import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../../core/setting-names.ts';

/** The components that ship with kaddon: `components/` at the root of its package. */
const builtinComponents = path.join(packageRoot(fileURLToPath(import.meta.url)), 'components');

/** The nearest folder above `file` with a package.json: this module may be in src/, dist/ or a bundle chunk. */
function packageRoot(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

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
