import { ensureGoBinary } from './go-build.ts';
import { ensureKubernetesCommand } from './kubernetes-command.ts';
import { pinnedVersions } from './pinned-versions.ts';

export interface ClusterBinaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
}

/** What a cluster whose workloads progress runs beside etcd and kube-apiserver (test/cluster/README.md). */
export interface ControllerBinaries {
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kwok: string;
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

/**
 * Built only for clusters started `withControllers`, so the bare cluster's tests never pay for
 * them. One after the other: the Kubernetes commands share most packages through Go's build
 * cache, and two builds at once on 2 cores only compete.
 */
export async function ensureControllerBinaries(): Promise<ControllerBinaries> {
  const kubeControllerManager = await ensureKubernetesCommand('kube-controller-manager');
  const kubeScheduler = await ensureKubernetesCommand('kube-scheduler');
  const kwok = await ensureKwok();
  return { kubeControllerManager, kubeScheduler, kwok };
}

function ensureEtcd(version: string = pinnedVersions.etcd): Promise<string> {
  return ensureGoBinary({ name: 'etcd', module: 'go.etcd.io/etcd/server/v3', version });
}

function ensureKubeApiServer(version: string = pinnedVersions.kubernetes): Promise<string> {
  return ensureKubernetesCommand('kube-apiserver', version);
}

/** KWOK's controller plays fake Nodes and their Pods; its module builds as published. */
function ensureKwok(version: string = pinnedVersions.kwok): Promise<string> {
  return ensureGoBinary({
    name: 'kwok',
    module: 'sigs.k8s.io/kwok',
    package: 'sigs.k8s.io/kwok/cmd/kwok',
    version,
  });
}
