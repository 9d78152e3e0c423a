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
const controllerSelection =
  '*,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller';

/**
 * How long a Node may go without renewing its Lease before the node lifecycle controller marks it
 * NotReady: 20 s instead of the default 50 s, with KWOK renewing every 4 s (kwok-controller.ts),
 * the same five renewals per period a kubelet has. Tests that hold a cluster steady (the examples'
 * three periods) then prove the same in a minute instead of three.
 */
export const nodeMonitorGracePeriodSeconds = 20;

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
    `--node-monitor-grace-period=${String(nodeMonitorGracePeriodSeconds)}s`,
  ];
}
