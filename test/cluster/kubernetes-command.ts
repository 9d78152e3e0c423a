import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClusterError } from './cluster-error.ts';
import { ensureGoBinary, findGo, goEnv, goHint } from './go-build.ts';
import { pinnedVersions } from './pinned-versions.ts';
import { runTool } from './run-tool.ts';

/** The commands of k8s.io/kubernetes the harness runs. */
export type KubernetesCommand = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

/**
 * One command of k8s.io/kubernetes, built on first use and cached by version. That module replaces
 * its staging modules with local paths, which `go install` refuses; a throw-away module replaces
 * each with its published v0.Y.Z instead (docs/architecture.md "Dependencies").
 */
export async function ensureKubernetesCommand(
  command: KubernetesCommand,
  version: string = pinnedVersions.kubernetes,
): Promise<string> {
  const [major, minor, patch] = parseKubeVersion(command, version);
  const stagingVersion = `v0.${minor}.${patch}`;
  const replace = Object.fromEntries(
    (await readStagingModules(command, version)).map((module) => [module, stagingVersion]),
  );
  return ensureGoBinary({
    name: command,
    module: 'k8s.io/kubernetes',
    package: `k8s.io/kubernetes/cmd/${command}`,
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

function parseKubeVersion(command: KubernetesCommand, version: string): [string, string, string] {
  const match = /^v(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) {
    throw new ClusterError(
      'build-failed',
      `${command} '${version}'`,
      'not a release version',
      'Pin a version like v1.35.4 in test/cluster/pinned-versions.ts.',
    );
  }
  return [match[1]!, match[2]!, match[3]!];
}

/** The `k8s.io/<name> => ./staging/src/...` modules listed in the release's own go.mod. */
async function readStagingModules(command: KubernetesCommand, version: string): Promise<string[]> {
  const step = `${command} '${version}' build`;
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
