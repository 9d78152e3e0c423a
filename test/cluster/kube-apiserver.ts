import { requestApi, type ApiCredentials } from './api-request.ts';
import type { Certificates } from './certificates.ts';
import type { ClusterLayout } from './cluster-layout.ts';
import { startReadyServer } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

/** The knobs tests turn to make watches end or history vanish on purpose. */
export interface ApiServerTuning {
  /** --min-request-timeout: the server ends a watch after a random time between this and twice this. */
  readonly minRequestTimeoutSeconds: number;
  /** --etcd-compaction-interval: how often old revisions go; a short one makes 410 Gone happen. */
  readonly etcdCompactionInterval: string;
  /** Off makes watches read etcd, so compacted versions answer 410 instead of coming from memory. */
  readonly watchCache: boolean;
  readonly extraFlags: readonly string[];
}

export interface ApiServerStart {
  readonly binary: string;
  readonly layout: ClusterLayout;
  readonly certificates: Certificates;
  readonly credentials: ApiCredentials;
  readonly port: number;
  readonly etcdUrl: string;
  readonly tuning: ApiServerTuning;
  /**
   * Checks the kubelets' serving certificates against this CA. Without it the apiserver skips the
   * check; only clusters whose KWOK serves the kubelet API pass it (workload-controllers.ts).
   */
  readonly kubeletCertificateAuthority: string | undefined;
  readonly detached: boolean;
  readonly timeoutMs: number;
}

export function startKubeApiServer(start: ApiServerStart): Promise<ServerProcess> {
  return startReadyServer(
    {
      name: 'kube-apiserver',
      binary: start.binary,
      args: apiServerArgs(start),
      logFile: start.layout.apiServerLog,
      detached: start.detached,
    },
    () => isApiServerReady(start.credentials),
    start.timeoutMs,
  );
}

/** The flags envtest starts it with (docs/architecture.md "Dependencies"). */
function apiServerArgs(start: ApiServerStart): string[] {
  const { certificates: certs, tuning } = start;
  return [
    `--etcd-servers=${start.etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${start.port}`,
    `--cert-dir=${start.layout.apiServerCertDir}`,
    `--tls-cert-file=${certs.serverCert}`,
    `--tls-private-key-file=${certs.serverKey}`,
    `--client-ca-file=${certs.caCert}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${certs.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${certs.serviceAccountKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    // No controller-manager creates default ServiceAccounts, so the plugin would refuse Pods.
    '--disable-admission-plugins=ServiceAccount',
    `--etcd-compaction-interval=${tuning.etcdCompactionInterval}`,
    `--min-request-timeout=${tuning.minRequestTimeoutSeconds}`,
    `--watch-cache=${tuning.watchCache}`,
    ...(start.kubeletCertificateAuthority === undefined
      ? []
      : [`--kubelet-certificate-authority=${start.kubeletCertificateAuthority}`]),
    ...tuning.extraFlags,
  ];
}

async function isApiServerReady(credentials: ApiCredentials): Promise<boolean> {
  const response = await requestApi(credentials, 'GET', '/readyz', undefined, 2000);
  return response.status === 200;
}
