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
  return [state.etcd, state.apiServer].some(
    (server) => server !== undefined && isOurProcess(server.pid, server.binary),
  );
}
