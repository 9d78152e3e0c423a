import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * kaddon's own package folder, where what ships with it is (dist/, components/, the chart renderer
 * in chart-renderer/bin/): the nearest folder above `moduleUrl` (a module's `import.meta.url`, in
 * src/ of a checkout, or dist/ built or installed) whose package.json is kaddon's; the module's
 * own folder when there is none.
 */
export function packageRoot(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'kaddon')
      return dir;
    if (path.dirname(dir) === dir) return start;
  }
}
