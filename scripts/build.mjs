// `npm run build [-- --outdir DIR]`: bundles src/ into a clean dist/ (or DIR) with esbuild and
// stamps it, so bin/kaddon.js can tell a build that is current from one older than the sources.
//
// The bundle holds kaddon's own code and @kubernetes/client-node's; every other package stays an
// import from node_modules. client-node's entry modules re-export its whole generated API (some
// 1,200 modules, 20 MB of source text kept in memory once loaded); bundled, only the configuration,
// transport and watch kaddon uses remain (docs/performance.md). Commands stay separate chunks, so
// a command loads only what it runs.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { buildUi } from './build-ui.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string', default: path.join(root, 'dist') } } });
const outdir = path.resolve(values.outdir);

/** Bare imports stay external but for client-node's: `node:` builtins and every other package. */
const externalPackages = {
  name: 'external-packages-but-client-node',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@kubernetes/client-node/') ? undefined : { external: true },
    );
  },
};

/** `undici` in the bundle is the three parts of it the bundle uses (scripts/undici-parts.mjs says why). */
const undiciParts = {
  name: 'undici-parts',
  setup(builder) {
    builder.onResolve({ filter: /^undici$/ }, () => ({ path: path.join(root, 'scripts/undici-parts.mjs') }));
  },
};

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [path.join(root, 'src/main.ts')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [undiciParts, externalPackages],
  // Stack traces of a bundled kaddon point at src/ (bin/kaddon.js turns Node's source maps on).
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
await buildUi(path.join(outdir, 'ui'));
writeFileSync(path.join(outdir, '.build-stamp'), `${new Date().toISOString()}\n`);
