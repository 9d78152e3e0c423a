import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder with a package.json: the checkout, or the installed package. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** dist/ui: the page's bundle, built by scripts/build.mjs and shipped in the package and the image. */
export function uiAssetsDir(): string {
  return path.join(packageRoot(), 'dist', 'ui');
}

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}
