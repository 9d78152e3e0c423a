import https from 'node:https';
import { requestApi, type ApiCredentials } from './api-request.ts';
import type { Certificates } from './certificates.ts';
import type { ControllerBinaries } from './cluster-binaries.ts';
import type { ClusterLayout } from './cluster-layout.ts';
import type { RecordedServer } from './cluster-state.ts';
import { areFakeNodesReady, createFakeNodes } from './fake-nodes.ts';
import { findFreePort } from './free-port.ts';
import { startKubeControllerManager } from './kube-controller-manager.ts';
import { startKubeScheduler } from './kube-scheduler.ts';
import { startKwok, type KubeletServer } from './kwok-controller.ts';
import { installPortForwardCrd } from './kwok-port-forward.ts';
import { waitUntilReady } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

export interface WorkloadControllersStart {
  readonly binaries: ControllerBinaries;
  readonly layout: ClusterLayout;
  readonly certificates: Certificates;
  readonly credentials: ApiCredentials;
  readonly detached: boolean;
  readonly timeoutMs: number;
  /** KWOK also serves the fake Nodes' kubelet API, for pods/portforward (test/cluster/README.md). */
  readonly portForward: boolean;
}

export interface WorkloadControllerPids {
  readonly controllerManager: number;
  readonly scheduler: number;
  readonly kwok: number;
}

/**
 * kube-controller-manager, kube-scheduler and KWOK with its fake Nodes: what makes workloads
 * progress on the test cluster (test/cluster/README.md). Each server is kept as soon as it runs,
 * so `stop` ends whatever a failed start left behind.
 */
export class WorkloadControllers {
  private controllerManager: ServerProcess | undefined;
  private scheduler: ServerProcess | undefined;
  private kwok: ServerProcess | undefined;

  constructor(private readonly start: WorkloadControllersStart) {}

  /** Returns once the fake Nodes take Pods and the `default` ServiceAccount exists. */
  async boot(): Promise<void> {
    const controllerManager = await this.startControlPlane();
    const kubeletServer = this.start.portForward ? await this.prepareKubeletServer() : undefined;
    await createFakeNodes(this.start.credentials, kubeletServer?.port);
    const { credentials } = this.start;
    this.kwok = await startKwok({
      ...this.common(),
      binary: this.start.binaries.kwok,
      configFile: this.start.layout.kwokConfig,
      logFile: this.start.layout.kwokLog,
      isReady: async () =>
        (await areFakeNodesReady(credentials)) &&
        (kubeletServer === undefined || (await isServing(kubeletServer, credentials.caPem))),
      kubeletServer,
    });
    // Made by the serviceaccount controller: the sign that controllers run, and what Pods run as.
    const hasServiceAccount = () => hasDefaultServiceAccount(this.start.credentials);
    await waitUntilReady(controllerManager, hasServiceAccount, this.start.timeoutMs);
  }

  /**
   * KWOK serves with the apiserver's own loopback certificate, which the cluster's CA signed: the
   * apiserver checks it with `--kubelet-certificate-authority` (kube-apiserver.ts).
   */
  private async prepareKubeletServer(): Promise<KubeletServer> {
    const { certificates, credentials, timeoutMs } = this.start;
    await installPortForwardCrd(credentials, timeoutMs);
    return { port: await findFreePort(), certFile: certificates.serverCert, keyFile: certificates.serverKey };
  }

  /** Side by side; the one that started is kept even when the other failed, so `stop` ends it. */
  private async startControlPlane(): Promise<ServerProcess> {
    const { binaries, layout, certificates } = this.start;
    const ports = { controllerManager: await findFreePort(), scheduler: await findFreePort() };
    const [controllerManager, scheduler] = await Promise.allSettled([
      startKubeControllerManager({
        ...this.common(),
        binary: binaries.kubeControllerManager,
        certificates,
        port: ports.controllerManager,
        logFile: layout.controllerManagerLog,
      }),
      startKubeScheduler({
        ...this.common(),
        binary: binaries.kubeScheduler,
        port: ports.scheduler,
        logFile: layout.schedulerLog,
      }),
    ]);
    if (controllerManager.status === 'fulfilled') this.controllerManager = controllerManager.value;
    if (scheduler.status === 'fulfilled') this.scheduler = scheduler.value;
    if (controllerManager.status === 'rejected') throw controllerManager.reason;
    if (scheduler.status === 'rejected') throw scheduler.reason;
    return controllerManager.value;
  }

  private common(): { kubeconfig: string; detached: boolean; timeoutMs: number } {
    const { layout, detached, timeoutMs } = this.start;
    return { kubeconfig: layout.kubeconfig, detached, timeoutMs };
  }

  pids(): WorkloadControllerPids {
    return {
      controllerManager: this.controllerManager?.pid ?? -1,
      scheduler: this.scheduler?.pid ?? -1,
      kwok: this.kwok?.pid ?? -1,
    };
  }

  recorded(): { controllerManager?: RecordedServer; scheduler?: RecordedServer; kwok?: RecordedServer } {
    const { binaries } = this.start;
    const record = (server: ServerProcess | undefined, binary: string) =>
      server ? { pid: server.pid, binary } : undefined;
    return {
      controllerManager: record(this.controllerManager, binaries.kubeControllerManager),
      scheduler: record(this.scheduler, binaries.kubeScheduler),
      kwok: record(this.kwok, binaries.kwok),
    };
  }

  async stop(): Promise<void> {
    await Promise.all([this.kwok?.stop(), this.scheduler?.stop(), this.controllerManager?.stop()]);
  }

  killNow(): void {
    for (const server of [this.kwok, this.scheduler, this.controllerManager]) server?.killNow();
  }
}

async function hasDefaultServiceAccount(credentials: ApiCredentials): Promise<boolean> {
  const path = '/api/v1/namespaces/default/serviceaccounts/default';
  return (await requestApi(credentials, 'GET', path, undefined, 2000)).status === 200;
}

/** KWOK starts its kubelet server after its controllers: its /healthz answering is the sign. */
function isServing(server: KubeletServer, caPem: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get(
      `https://127.0.0.1:${server.port}/healthz`,
      { ca: caPem, timeout: 2000 },
      (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      resolve(false);
    });
  });
}
