import type { Certificates } from './certificates.ts';
import { componentServerArgs, isComponentHealthy } from './component-health.ts';
import { startReadyServer } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

export interface ControllerManagerStart {
  readonly binary: string;
  readonly kubeconfig: string;
  readonly certificates: Certificates;
  readonly port: number;
  readonly logFile: string;
  readonly detached: boolean;
  readonly timeoutMs: number;
}

/**
 * Every controller a cluster without a cloud provider runs: there is no cloud here, so the
 * controllers that call one are left out rather than left to fail.
 */
export const controllerSelection =
  '*,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller';

export function startKubeControllerManager(start: ControllerManagerStart): Promise<ServerProcess> {
  return startReadyServer(
    {
      name: 'kube-controller-manager',
      binary: start.binary,
      args: controllerManagerArgs(start),
      logFile: start.logFile,
      detached: start.detached,
    },
    () => isComponentHealthy(start.port),
    start.timeoutMs,
  );
}

function controllerManagerArgs(start: ControllerManagerStart): string[] {
  const { certificates: certs } = start;
  return [
    ...componentServerArgs(start.kubeconfig, start.port),
    `--controllers=${controllerSelection}`,
    // The token and root-CA publisher controllers: ServiceAccount tokens and kube-root-ca.crt.
    `--service-account-private-key-file=${certs.serviceAccountKey}`,
    `--root-ca-file=${certs.caCert}`,
    // CertificateSigningRequests are signed by the cluster's own throw-away CA.
    `--cluster-signing-cert-file=${certs.caCert}`,
    `--cluster-signing-key-file=${certs.caKey}`,
  ];
}
