import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, constants, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheDir, fillCacheDir } from './cache-dir.ts';
import { ClusterError } from './cluster-error.ts';
import { runTool } from './run-tool.ts';

/** A Go command built from the module proxy in a throw-away module. */
export interface GoBinary {
  /** The binary's file name and its cache folder, e.g. `kube-apiserver`. */
  readonly name: string;
  readonly module: string;
  readonly version: string;
  /** The main package; the module root when not given. */
  readonly package?: string;
  /** Module path → version, for modules whose own go.mod points at local paths. */
  readonly replace?: Readonly<Record<string, string>>;
  readonly ldflags?: readonly string[];
}

export const goHint =
  'Install Go 1.25 or newer (on PATH, or set GO=/path/to/go), make the Go module proxy reachable, and check that the pinned version exists there (test/cluster/pinned-versions.ts).';

/** The cached binary's path, building it first when the cache lacks it. */
export async function ensureGoBinary(binary: GoBinary): Promise<string> {
  const versionDir = cacheDir(binary.name, binary.version);
  const target = path.join(versionDir, binary.name);
  await fillCacheDir(
    versionDir,
    () => isExecutable(target),
    async (staging) => {
      await buildInto(staging, binary);
      return path.join(staging, 'bin');
    },
  );
  return target;
}

async function buildInto(workDir: string, binary: GoBinary): Promise<void> {
  const step = `${binary.name} '${binary.version}' build`;
  const run = { cwd: workDir, env: goEnv(), step, hint: goHint, failureCode: 'build-failed' as const };
  const mainPackage = binary.package ?? binary.module;
  await writeFile(path.join(workDir, 'go.mod'), throwAwayGoMod(binary));
  await runTool(await findGo(), ['get', `${mainPackage}@${binary.version}`], run);
  await goBuild(run, path.join(workDir, 'bin'), binary.name, mainPackage, binary.ldflags);
}

/** `go build` of `mainPackage` into `binDir`/`name`, stripped, paths trimmed. */
async function goBuild(
  run: Parameters<typeof runTool>[2],
  binDir: string,
  name: string,
  mainPackage: string,
  extraLdflags: readonly string[] = [],
): Promise<void> {
  await mkdir(binDir);
  const ldflags = ['-s', '-w', ...extraLdflags].join(' ');
  await runTool(
    await findGo(),
    ['build', '-trimpath', `-ldflags=${ldflags}`, '-o', path.join(binDir, name), mainPackage],
    run,
  );
}

/**
 * A Go command kept in this repository with its own go.mod (test/oidc/provider), its dependencies
 * from the Go module proxy: built into the cache once per version of its sources (main.go, go.mod,
 * go.sum), so a changed source is built again.
 */
export async function ensureLocalGoBinary(name: string, sourceDir: string): Promise<string> {
  const sources = ['main.go', 'go.mod', 'go.sum'].map((file) => readFileSync(path.join(sourceDir, file)));
  const version = createHash('sha256').update(Buffer.concat(sources)).digest('hex').slice(0, 16);
  const versionDir = cacheDir(name, version);
  const target = path.join(versionDir, name);
  await fillCacheDir(
    versionDir,
    () => isExecutable(target),
    async (staging) => {
      const run = {
        cwd: sourceDir,
        env: goEnv(),
        step: `${name} build`,
        hint: goHint,
        failureCode: 'build-failed' as const,
      };
      await goBuild(run, path.join(staging, 'bin'), name, '.');
      return path.join(staging, 'bin');
    },
  );
  return target;
}

function throwAwayGoMod(binary: GoBinary): string {
  const replaces = Object.entries(binary.replace ?? {}).map(
    ([module, version]) => `\t${module} => ${module} ${version}`,
  );
  const replaceBlock = replaces.length === 0 ? '' : `\nreplace (\n${replaces.join('\n')}\n)\n`;
  return `module kaddon.test/build-${binary.name}\n\ngo 1.24\n\nrequire ${binary.module} ${binary.version}\n${replaceBlock}`;
}

/** Static, no toolchain switching: the build must use the machine's Go or say why it cannot. */
export function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=mod -buildvcs=false',
    GO111MODULE: 'on',
  };
}

/** `$GO`, else `go` on PATH, else the standard /usr/local/go install. */
export async function findGo(): Promise<string> {
  if (process.env.GO) return process.env.GO;
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'go'));
  for (const candidate of [...onPath, '/usr/local/go/bin/go']) {
    if (await isExecutable(candidate)) return candidate;
  }
  throw new ClusterError(
    'tool-missing',
    "tool 'go'",
    'not found on PATH nor at /usr/local/go/bin/go',
    goHint,
  );
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
