import { componentServerArgs, isComponentHealthy } from './component-health.ts';
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
      args: componentServerArgs(start.kubeconfig, start.port),
      logFile: start.logFile,
      detached: start.detached,
    },
    () => isComponentHealthy(start.port),
    start.timeoutMs,
  );
}
