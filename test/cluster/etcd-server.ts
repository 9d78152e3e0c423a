import type { ClusterLayout } from './cluster-layout.ts';
import { startReadyServer } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

export interface EtcdPorts {
  readonly client: number;
  readonly peer: number;
}

export interface EtcdStart {
  readonly binary: string;
  readonly layout: ClusterLayout;
  readonly ports: EtcdPorts;
  readonly detached: boolean;
  readonly timeoutMs: number;
}

/** A single-member etcd on loopback; both ports set, as the defaults (2379/2380) may be taken. */
export function startEtcd(start: EtcdStart): Promise<ServerProcess> {
  return startReadyServer(
    {
      name: 'etcd',
      binary: start.binary,
      args: etcdArgs(start.layout, start.ports),
      logFile: start.layout.etcdLog,
      detached: start.detached,
    },
    () => isEtcdHealthy(start.ports.client),
    start.timeoutMs,
  );
}

export function etcdUrl(ports: EtcdPorts): string {
  return `http://127.0.0.1:${ports.client}`;
}

function etcdArgs(layout: ClusterLayout, ports: EtcdPorts): string[] {
  const peer = `http://127.0.0.1:${ports.peer}`;
  return [
    '--name=default',
    `--data-dir=${layout.etcdData}`,
    `--listen-client-urls=${etcdUrl(ports)}`,
    `--advertise-client-urls=${etcdUrl(ports)}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // Its data is thrown away after the run: durability only costs time.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

async function isEtcdHealthy(clientPort: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${clientPort}/health`, {
    signal: AbortSignal.timeout(2000),
  });
  return response.ok && ((await response.json()) as { health?: string }).health === 'true';
}
