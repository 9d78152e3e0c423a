// Bundles the status page (ui/, docs/ui.md) into OUTDIR: index.html, app.js, app.css. Everything the
// page needs is in these three files, so it works air-gapped.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function buildUi(outdir) {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [path.join(root, 'ui/app.ts')],
    outfile: path.join(outdir, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
  });
  copyFileSync(path.join(root, 'ui/index.html'), path.join(outdir, 'index.html'));
  copyFileSync(path.join(root, 'ui/app.css'), path.join(outdir, 'app.css'));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await buildUi(path.resolve(process.argv[2] ?? path.join(root, 'dist/ui')));
