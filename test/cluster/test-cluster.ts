import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { clusterDirPrefix, removeAbandonedClusters } from './abandoned-clusters.ts';
import type { ApiCredentials } from './api-request.ts';
import {
  ensureClusterBinaries,
  ensureControllerBinaries,
  type ClusterBinaries,
  type ControllerBinaries,
} from './cluster-binaries.ts';
import { ClusterError } from './cluster-error.ts';
import { clusterLayout, removeLayout } from './cluster-layout.ts';
import { planCluster, type ClusterPlan } from './cluster-plan.ts';
import { writeClusterState } from './cluster-state.ts';
import { etcdUrl, startEtcd } from './etcd-server.ts';
import { onProcessExit } from './exit-cleanup.ts';
import { startKubeApiServer, type ApiServerTuning } from './kube-apiserver.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import type { ServerProcess } from './server-process.ts';
import { WorkloadControllers, type WorkloadControllerPids } from './workload-controllers.ts';

export interface TestClusterOptions {
  /** Where the cluster's files live; a fresh directory under the OS temp dir when not given. */
  readonly dir?: string;
  /** Default 1800 (the apiserver's own default). */
  readonly minRequestTimeoutSeconds?: number;
  /** Default '5m' (the apiserver's own default); '0' turns compaction off. */
  readonly etcdCompactionInterval?: string;
  /**
   * Default true. The watch cache serves old resource versions from memory, so a watch from a
   * compacted version gets 410 Gone only with it off (checked: '1s' compaction, cache off → 410).
   */
  readonly watchCache?: boolean;
  readonly extraApiServerFlags?: readonly string[];
  /** How long each server may take to become ready; default 60 s. */
  readonly startTimeoutMs?: number;
  /** Keep the servers running after this process exits (the CLI's `start`); no exit cleanup. */
  readonly detached?: boolean;
  /** Prebuilt binaries; built or taken from the cache when not given. */
  readonly binaries?: ClusterBinaries;
  /**
   * Also run kube-controller-manager, kube-scheduler and KWOK with two fake Nodes, so workloads
   * progress, Pods become Ready, Namespaces finalize and garbage is collected (README.md).
   * Default false: the bare cluster starts in seconds and needs no further binaries.
   */
  readonly withControllers?: boolean;
  /**
   * With `withControllers`: KWOK also serves the fake Nodes' kubelet API, so the apiserver's
   * pods/portforward works for their Pods once `forwardPodPort` (kwok-port-forward.ts) says where
   * each forward goes (README.md "Port-forward to a fake Pod"). Default false.
   */
  readonly withPortForward?: boolean;
  /** Prebuilt controller binaries for `withControllers`; built or taken from the cache when not given. */
  readonly controllerBinaries?: ControllerBinaries;
}

export interface TestCluster extends ApiCredentials {
  readonly kubeconfigPath: string;
  readonly dir: string;
  /** -1 for a server that does not run (the controllers' without `withControllers`). */
  readonly pids: () => { readonly etcd: number; readonly apiServer: number } & WorkloadControllerPids;
  /** Stops kube-apiserver and starts it again on the same port, with the same etcd and certificates. */
  restartApiServer(): Promise<void>;
  /** Stops every server and removes every file the cluster wrote; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * etcd and kube-apiserver on loopback ports, with a kubeconfig for a system:masters user. A free port
 * can be taken by another test's cluster between the moment it is found and the moment a server binds
 * it; such a start is tried again, on new ports, up to three times.
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error: unknown) {
      const portTaken = error instanceof Error && error.message.includes('address already in use');
      if (!portTaken || attempt >= 3 || options.dir !== undefined) throw error;
    }
  }
}

async function startOnce(options: TestClusterOptions): Promise<TestCluster> {
  if (options.withPortForward && !options.withControllers) {
    throw new ClusterError(
      'command-failed',
      "test cluster 'options'",
      'withPortForward needs Pods running on the fake Nodes',
      'Pass withControllers as true too: port-forward needs KWOK.',
    );
  }
  const binaries = options.binaries ?? (await ensureClusterBinaries());
  const controllerBinaries = options.withControllers
    ? (options.controllerBinaries ?? (await ensureControllerBinaries()))
    : undefined;
  if (options.dir === undefined) removeAbandonedClusters();
  const layout = clusterLayout(options.dir ?? (await mkdtemp(path.join(os.tmpdir(), clusterDirPrefix))));
  let cluster: LoopbackCluster;
  try {
    cluster = new LoopbackCluster(await planCluster(binaries, controllerBinaries, layout), options);
  } catch (error: unknown) {
    removeLayout(layout);
    throw error;
  }
  try {
    await cluster.boot();
  } catch (error: unknown) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

class LoopbackCluster implements TestCluster {
  readonly kubeconfigPath: string;
  readonly dir: string;
  readonly server: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  private etcd: ServerProcess | undefined;
  private apiServer: ServerProcess | undefined;
  private controllers: WorkloadControllers | undefined;
  private readonly unregister: () => void;

  constructor(
    private readonly plan: ClusterPlan,
    private readonly options: TestClusterOptions,
  ) {
    this.server = plan.credentials.server;
    this.caPem = plan.credentials.caPem;
    this.clientCertPem = plan.credentials.clientCertPem;
    this.clientKeyPem = plan.credentials.clientKeyPem;
    this.kubeconfigPath = plan.layout.kubeconfig;
    this.dir = plan.layout.dir;
    this.unregister = options.detached
      ? () => undefined
      : onProcessExit(() => {
          this.killNow();
        });
  }

  async boot(): Promise<void> {
    const { binaries, layout, etcdPorts } = this.plan;
    const detached = this.options.detached ?? false;
    const timeoutMs = this.options.startTimeoutMs ?? 60_000;
    this.etcd = await startEtcd({ binary: binaries.etcd, layout, ports: etcdPorts, detached, timeoutMs });
    await this.recordState();
    await this.startApiServer();
    await writeKubeconfig(layout.kubeconfig, this.plan.credentials);
    if (this.plan.controllerBinaries) await this.startControllers(this.plan.controllerBinaries);
  }

  pids = () => ({
    etcd: this.etcd?.pid ?? -1,
    apiServer: this.apiServer?.pid ?? -1,
    controllerManager: -1,
    scheduler: -1,
    kwok: -1,
    ...this.controllers?.pids(),
  });

  async restartApiServer(): Promise<void> {
    await this.apiServer?.stop();
    this.apiServer = undefined;
    await this.startApiServer();
  }

  async stop(): Promise<void> {
    await this.controllers?.stop();
    await this.apiServer?.stop();
    await this.etcd?.stop();
    removeLayout(this.plan.layout);
    this.unregister();
  }

  private async startApiServer(): Promise<void> {
    const { binaries, layout, certificates, credentials, etcdPorts } = this.plan;
    this.apiServer = await startKubeApiServer({
      binary: binaries.kubeApiServer,
      layout,
      certificates,
      credentials,
      port: Number(new URL(credentials.server).port),
      etcdUrl: etcdUrl(etcdPorts),
      tuning: this.tuning(),
      kubeletCertificateAuthority: this.options.withPortForward ? certificates.caCert : undefined,
      detached: this.options.detached ?? false,
      timeoutMs: this.options.startTimeoutMs ?? 60_000,
    });
    await this.recordState();
  }

  /** With the admin kubeconfig: controllers act as system:masters, not as their own ServiceAccounts. */
  private async startControllers(binaries: ControllerBinaries): Promise<void> {
    const { layout, certificates, credentials } = this.plan;
    this.controllers = new WorkloadControllers({
      binaries,
      layout,
      certificates,
      credentials,
      detached: this.options.detached ?? false,
      timeoutMs: this.options.startTimeoutMs ?? 60_000,
      portForward: this.options.withPortForward ?? false,
    });
    try {
      await this.controllers.boot();
    } finally {
      await this.recordState();
    }
  }

  private tuning(): ApiServerTuning {
    return {
      minRequestTimeoutSeconds: this.options.minRequestTimeoutSeconds ?? 1800,
      etcdCompactionInterval: this.options.etcdCompactionInterval ?? '5m',
      watchCache: this.options.watchCache ?? true,
      extraFlags: this.options.extraApiServerFlags ?? [],
    };
  }

  private async recordState(): Promise<void> {
    const { binaries, layout } = this.plan;
    const record = (server: ServerProcess | undefined, binary: string) =>
      server ? { pid: server.pid, binary } : undefined;
    await writeClusterState(layout.state, {
      etcd: record(this.etcd, binaries.etcd),
      apiServer: record(this.apiServer, binaries.kubeApiServer),
      ...this.controllers?.recorded(),
    });
  }

  private killNow(): void {
    this.controllers?.killNow();
    this.apiServer?.killNow();
    this.etcd?.killNow();
    removeLayout(this.plan.layout);
  }
}
