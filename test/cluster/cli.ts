/**
 * `npm run test-cluster -- start DIR` starts a detached test cluster whose files live in DIR and
 * prints its kubeconfig's path; `npm run test-cluster -- stop DIR` stops it and removes its files.
 */
import path from 'node:path';
import { KaddonError } from '../../src/core/errors.ts';
import { ClusterError } from './cluster-error.ts';
import { clusterLayout, removeLayout } from './cluster-layout.ts';
import { isClusterRunning, readClusterState, type ClusterState } from './cluster-state.ts';
import { stopPid } from './server-process.ts';
import { startTestCluster } from './test-cluster.ts';

const usage = 'Usage: npm run test-cluster -- start DIR | stop DIR';

async function start(dir: string): Promise<void> {
  const running = readClusterState(clusterLayout(dir).state);
  if (running && isClusterRunning(running)) {
    const hint = 'Stop it first with `npm run test-cluster -- stop DIR`, or pick another DIR.';
    throw new ClusterError('cluster-running', `test cluster '${dir}'`, 'already runs there', hint);
  }
  const cluster = await startTestCluster({ dir, detached: true });
  process.stdout.write(`${cluster.kubeconfigPath}\n`);
}

async function stop(dir: string): Promise<void> {
  const layout = clusterLayout(dir);
  const state = readState(layout.state);
  // The apiserver first: it would otherwise log etcd errors while shutting down.
  if (state.apiServer) await stopPid(state.apiServer.pid, state.apiServer.binary);
  if (state.etcd) await stopPid(state.etcd.pid, state.etcd.binary);
  removeLayout(layout);
}

function readState(file: string): ClusterState {
  const state = readClusterState(file);
  if (state) return state;
  const hint = 'Pass the DIR given to `start`; a cluster that failed to start has cleaned up after itself.';
  throw new ClusterError(
    'cluster-not-found',
    `test cluster '${path.dirname(file)}'`,
    `cannot read ${file}`,
    hint,
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, dir] = argv;
  if (!dir || (command !== 'start' && command !== 'stop')) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  try {
    await (command === 'start' ? start : stop)(path.resolve(dir));
    return 0;
  } catch (error: unknown) {
    if (!(error instanceof KaddonError)) throw error;
    process.stderr.write(`${error.describe()}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
