import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { isOurProcess } from './server-process.ts';

export interface RecordedServer {
  readonly pid: number;
  readonly binary: string;
}

/**
 * What a cluster records in its directory (cluster.json): each running server's pid and binary,
 * so a later process can stop a detached cluster or recognize an abandoned one.
 */
export interface ClusterState {
  readonly etcd?: RecordedServer;
  readonly apiServer?: RecordedServer;
  /** The workload controllers, when started `withControllers` (workload-controllers.ts). */
  readonly controllerManager?: RecordedServer;
  readonly scheduler?: RecordedServer;
  readonly kwok?: RecordedServer;
}

/** Every recorded server, in the order to stop them: dependents before what they depend on. */
export function recordedServers(state: ClusterState): RecordedServer[] {
  const servers = [state.kwok, state.scheduler, state.controllerManager, state.apiServer, state.etcd];
  return servers.filter((server) => server !== undefined);
}

export async function writeClusterState(file: string, state: ClusterState): Promise<void> {
  await writeFile(file, JSON.stringify(state, null, 2) + '\n');
}

/** The recorded state, or undefined when the file is missing or unreadable. */
export function readClusterState(file: string): ClusterState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

/** Whether any recorded server still runs (checked by pid and binary: pids get recycled). */
export function isClusterRunning(state: ClusterState): boolean {
  return recordedServers(state).some((server) => isOurProcess(server.pid, server.binary));
}
