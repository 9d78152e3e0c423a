import { isComponentHealthy } from './component-health.ts';
import { startReadyServer } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

export interface SchedulerStart {
  readonly binary: string;
  readonly kubeconfig: string;
  readonly port: number;
  readonly logFile: string;
  readonly detached: boolean;
  readonly timeoutMs: number;
}

export function startKubeScheduler(start: SchedulerStart): Promise<ServerProcess> {
  return startReadyServer(
    {
      name: 'kube-scheduler',
      binary: start.binary,
      args: [
        `--kubeconfig=${start.kubeconfig}`,
        `--authentication-kubeconfig=${start.kubeconfig}`,
        `--authorization-kubeconfig=${start.kubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${start.port}`,
        '--leader-elect=false',
      ],
      logFile: start.logFile,
      detached: start.detached,
    },
    () => isComponentHealthy(start.port),
    start.timeoutMs,
  );
}
