// `node scripts/build-chart-renderer.mjs`: builds chart-renderer/ (kaddon-chart-renderer, Helm's
// template engine as a long-lived process; docs/delivery.md "Chart modules without a process per
// render") into chart-renderer/bin/, when Go is on this machine. `npm ci` runs it (prepare), and
// so does the test runner; a binary newer than its sources is kept. Without Go it says so and
// exits 0: kaddon then renders chart modules with `helm template`, and says that once.
//
// The Helm version is the one chart-renderer/go.mod requires; the binary carries it as the helm
// CLI of that release does (-X …/internal/version.version), so `.Capabilities.HelmVersion` reads
// the same.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = path.join(root, 'chart-renderer');
const target = path.join(dir, 'bin', 'kaddon-chart-renderer');
const sources = ['main.go', 'go.mod', 'go.sum'].map((name) => path.join(dir, name));

function findGo() {
  if (process.env.GO) return process.env.GO;
  for (const candidate of [
    ...(process.env.PATH ?? '').split(path.delimiter).map((entry) => path.join(entry, 'go')),
    '/usr/local/go/bin/go',
  ])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

function upToDate() {
  if (!existsSync(target)) return false;
  const built = statSync(target).mtimeMs;
  return sources.every((file) => !existsSync(file) || statSync(file).mtimeMs <= built);
}

const helmVersion = /^require helm\.sh\/helm\/v4 (v\S+)$/m.exec(
  readFileSync(path.join(dir, 'go.mod'), 'utf8'),
)?.[1];
if (helmVersion === undefined) {
  process.stderr.write('chart-renderer/go.mod names no helm.sh/helm/v4 version\n');
  process.exit(1);
}

if (upToDate()) process.exit(0);
const go = findGo();
if (go === undefined) {
  process.stderr.write(
    'kaddon: Go is not installed: chart modules will be rendered by `helm template`, one process per render (docs/delivery.md)\n',
  );
  process.exit(0);
}

mkdirSync(path.dirname(target), { recursive: true });
const partial = `${target}.partial`;
const result = spawnSync(
  go,
  [
    'build',
    '-trimpath',
    `-ldflags=-s -w -X helm.sh/helm/v4/internal/version.version=${helmVersion}`,
    '-o',
    partial,
    '.',
  ],
  {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly -buildvcs=false' },
  },
);
if (result.status !== 0) {
  process.stderr.write(
    `kaddon: building chart-renderer/ with ${go} failed (${result.error?.message ?? `exit ${String(result.status)}`}): chart modules will be rendered by \`helm template\`\n`,
  );
  process.exit(0);
}
renameSync(partial, target);
process.stdout.write(`kaddon-chart-renderer (Helm ${helmVersion}): ${path.relative(root, target)}\n`);
