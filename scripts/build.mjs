// `npm run build`: compiles src/ into a clean dist/ and stamps it, so bin/kaddon.js can tell a build
// that is current from one older than the sources.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
writeFileSync(`${root}dist/.build-stamp`, `${new Date().toISOString()}\n`);
