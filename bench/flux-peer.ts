import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { KubeClient } from '../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../src/delivery/kube-connection.ts';
import { findFreePort } from '../test/cluster/free-port.ts';
import { startTestCluster, type TestCluster } from '../test/cluster/test-cluster.ts';
import type { GeneratedModulesTree } from './generate-modules.ts';

/** Flux's kustomize-controller and the CRDs it needs, as bench/flux/build-kustomize-controller.sh leaves them. */
export interface FluxPeer {
  readonly controller: string;
  readonly crdsDir: string;
}

export interface FluxTiming {
  readonly kustomizations: number;
  readonly objects: number;
  /** Controller spawn to every Kustomization Ready; undefined when that did not happen in time. */
  readonly seconds: number | undefined;
  /** How many were Ready at the end. */
  readonly ready: number;
}

const FLUX_NAMESPACE = 'flux-system';
const DEADLINE_MS = 30 * 60_000;
const KUSTOMIZATIONS_PATH = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NAMESPACE}/kustomizations`;

export function findFluxPeer(repoRoot: string): FluxPeer | undefined {
  const dir = path.join(repoRoot, 'bench/out/flux');
  const peer = { controller: path.join(dir, 'kustomize-controller'), crdsDir: path.join(dir, 'crds') };
  return existsSync(peer.controller) && existsSync(peer.crdsDir) ? peer : undefined;
}

/**
 * Flux on the same modules, in a cluster of its own: the tree rendered by `kaddon build`, one
 * directory a module in one artifact (a tarball served from here, set as a GitRepository's
 * artifact: no source-controller runs), one Kustomization a module with Flux's defaults (prune,
 * no wait), and kustomize-controller with its defaults (4 concurrent reconciles). Timed from the
 * controller's spawn to every Kustomization Ready, as kaddon is from spawn to /readyz.
 */
export async function measureFluxConvergence(
  repoRoot: string,
  peer: FluxPeer,
  tree: GeneratedModulesTree,
  namespaces: readonly string[],
): Promise<FluxTiming> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'kaddon-flux-bench-'));
  let cluster: TestCluster | undefined;
  let server: Server | undefined;
  try {
    const artifact = await writeArtifact(repoRoot, tree, work);
    server = await serveFile(artifact.file);
    cluster = await startTestCluster({ extraApiServerFlags: ['--service-cluster-ip-range=10.0.0.0/16'] });
    const kubeconfig = cluster.kubeconfigPath;
    const api = new KubeClient(connectionFromKubeconfig(kubeconfig));
    for (const name of [FLUX_NAMESPACE, ...namespaces]) {
      await api.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      });
    }
    await kubectl(kubeconfig, ['apply', '--server-side', '-f', peer.crdsDir]);
    await kubectl(kubeconfig, ['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all']);
    await createSource(kubeconfig, artifact, server);
    await kubectl(kubeconfig, ['apply', '-f', '-'], kustomizations(artifact.modules));
    const seconds = await runController(peer, kubeconfig, api, artifact.modules.length);
    const ready = await readyCount(api);
    return { kustomizations: artifact.modules.length, objects: artifact.objects, seconds, ready };
  } finally {
    server?.close();
    await cluster?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

interface Artifact {
  readonly file: string;
  readonly digest: string;
  readonly modules: readonly string[];
  readonly objects: number;
}

/** `kaddon build` of the tree, split by its `# module:` marks into one directory a module, tarred. */
async function writeArtifact(repoRoot: string, tree: GeneratedModulesTree, work: string): Promise<Artifact> {
  const built = await execa(
    process.execPath,
    [path.join(repoRoot, 'bin/kaddon.js'), 'build', tree.modulesDir],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const byModule = new Map<string, string[]>();
  for (const document of built.stdout.split(/^---$/m)) {
    const module = /^# module: (\S+)$/m.exec(document)?.[1];
    if (module === undefined) continue;
    byModule.set(module, [...(byModule.get(module) ?? []), document.trim()]);
  }
  const root = path.join(work, 'artifact');
  for (const [module, documents] of byModule) {
    await mkdir(path.join(root, module), { recursive: true });
    await writeFile(path.join(root, module, 'all.yaml'), `${documents.join('\n---\n')}\n`);
  }
  const file = path.join(work, 'artifact.tar.gz');
  await execa('tar', ['-czf', file, '-C', root, '.']);
  const digest = createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
  const objects = [...byModule.values()].reduce((total, documents) => total + documents.length, 0);
  return { file, digest: `sha256:${digest}`, modules: [...byModule.keys()], objects };
}

async function serveFile(file: string): Promise<Server> {
  const body = await readFile(file);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
    response.end(body);
  });
  const port = await findFreePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/** A GitRepository whose status carries the artifact, as source-controller would set it. */
async function createSource(kubeconfig: string, artifact: Artifact, server: Server): Promise<void> {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const source = {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name: 'bench', namespace: FLUX_NAMESPACE },
    spec: { interval: '10m', url: 'https://git.example.com/bench.git', ref: { branch: 'main' } },
  };
  await kubectl(kubeconfig, ['apply', '-f', '-'], JSON.stringify(source));
  const status = {
    status: {
      artifact: {
        path: 'gitrepository/flux-system/bench/artifact.tar.gz',
        url: `http://127.0.0.1:${String(port)}/artifact.tar.gz`,
        revision: `main@sha1:${'0'.repeat(40)}`,
        digest: artifact.digest,
        lastUpdateTime: new Date().toISOString(),
      },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Succeeded',
          message: 'served by the benchmark',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    },
  };
  const patch = ['patch', 'gitrepository', 'bench', '-n', FLUX_NAMESPACE, '--subresource=status'];
  await kubectl(kubeconfig, [...patch, '--type=merge', '-p', JSON.stringify(status)]);
}

function kustomizations(modules: readonly string[]): string {
  const items = modules.map((module) => ({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: module, namespace: FLUX_NAMESPACE },
    spec: {
      interval: '10m',
      path: `./${module}`,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'bench' },
    },
  }));
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

async function runController(
  peer: FluxPeer,
  kubeconfig: string,
  api: KubeClient,
  count: number,
): Promise<number | undefined> {
  const [metrics, health] = [await findFreePort(), await findFreePort()];
  const startedAt = performance.now();
  const controller = execa(
    peer.controller,
    [
      '--enable-leader-election=false',
      `--metrics-addr=127.0.0.1:${String(metrics)}`,
      `--health-addr=127.0.0.1:${String(health)}`,
      '--log-level=error',
    ],
    { env: { KUBECONFIG: kubeconfig, RUNTIME_NAMESPACE: FLUX_NAMESPACE }, reject: false, all: true },
  );
  try {
    while (performance.now() - startedAt < DEADLINE_MS && controller.exitCode === null) {
      if ((await readyCount(api)) >= count) return (performance.now() - startedAt) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ready = await readyCount(api);
    console.error(
      `# flux: ${String(ready)} of ${String(count)} Kustomizations Ready in time; controller output (tail):`,
    );
    controller.kill('SIGTERM');
    console.error((await controller).all.slice(-4000));
    return undefined;
  } finally {
    controller.kill('SIGTERM');
    await controller;
  }
}

async function readyCount(api: KubeClient): Promise<number> {
  const list = await api.request('GET', KUSTOMIZATIONS_PATH);
  const items = Array.isArray(list.items) ? list.items : [];
  return items.filter(isReady).length;
}

function isReady(item: unknown): boolean {
  const conditions = (item as { status?: { conditions?: { type?: string; status?: string }[] } }).status
    ?.conditions;
  return conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

async function kubectl(kubeconfig: string, args: readonly string[], input?: string): Promise<void> {
  await execa('kubectl', ['--kubeconfig', kubeconfig, ...args], input === undefined ? {} : { input });
}
