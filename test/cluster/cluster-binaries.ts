import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClusterError } from './cluster-error.ts';
import { ensureGoBinary, findGo, goEnv, goHint } from './go-build.ts';
import { pinnedVersions } from './pinned-versions.ts';
import { runTool } from './run-tool.ts';

export interface ClusterBinaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
}

/**
 * Both binaries, built from the Go module proxy on first use and cached by version.
 * etcd is built rather than taken from apt: the same Go toolchain the apiserver needs anyway,
 * no root, any distribution, and the version kube-apiserver is tested with (bookworm has 3.4).
 */
export async function ensureClusterBinaries(): Promise<ClusterBinaries> {
  const [etcd, kubeApiServer] = await Promise.all([ensureEtcd(), ensureKubeApiServer()]);
  return { etcd, kubeApiServer };
}

export function ensureEtcd(version: string = pinnedVersions.etcd): Promise<string> {
  return ensureGoBinary({ name: 'etcd', module: 'go.etcd.io/etcd/server/v3', version });
}

/**
 * k8s.io/kubernetes replaces its staging modules with local paths, which `go install` refuses;
 * a throw-away module replaces each with its published v0.Y.Z instead (docs/architecture.md "Dependencies").
 */
export async function ensureKubeApiServer(version: string = pinnedVersions.kubernetes): Promise<string> {
  const [major, minor, patch] = parseKubeVersion(version);
  const stagingVersion = `v0.${minor}.${patch}`;
  const replace = Object.fromEntries(
    (await readStagingModules(version)).map((module) => [module, stagingVersion]),
  );
  return ensureGoBinary({
    name: 'kube-apiserver',
    module: 'k8s.io/kubernetes',
    package: 'k8s.io/kubernetes/cmd/kube-apiserver',
    version,
    replace,
    ldflags: [
      `-X k8s.io/component-base/version.gitVersion=${version}`,
      `-X k8s.io/component-base/version.gitMajor=${major}`,
      `-X k8s.io/component-base/version.gitMinor=${minor}`,
      '-X k8s.io/component-base/version.gitTreeState=clean',
    ],
  });
}

function parseKubeVersion(version: string): [string, string, string] {
  const match = /^v(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) {
    throw new ClusterError(
      'build-failed',
      `kube-apiserver '${version}'`,
      'not a release version',
      'Pin a version like v1.35.4 in test/cluster/pinned-versions.ts.',
    );
  }
  return [match[1]!, match[2]!, match[3]!];
}

/** The `k8s.io/<name> => ./staging/src/...` modules listed in the release's own go.mod. */
async function readStagingModules(version: string): Promise<string[]> {
  const step = `kube-apiserver '${version}' build`;
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'kaddon-gomod-'));
  try {
    const json = await runTool(await findGo(), ['mod', 'download', '-json', `k8s.io/kubernetes@${version}`], {
      cwd: scratch,
      env: goEnv(),
      step,
      hint: goHint,
      failureCode: 'build-failed',
    });
    const goMod = await readFile((JSON.parse(json) as { GoMod: string }).GoMod, 'utf8');
    const modules = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\//gm)].map(
      (match) => match[1]!,
    );
    if (modules.length === 0) {
      throw new ClusterError('build-failed', step, 'its go.mod lists no staging modules', goHint);
    }
    return modules;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
