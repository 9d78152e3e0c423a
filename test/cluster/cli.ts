/**
 * `npm run test-cluster -- start DIR` starts a detached test cluster whose files live in DIR and
 * prints its kubeconfig's path (`--with-controllers`: one whose workloads progress, as
 * `withControllers` in test-cluster.ts; `--with-port-forward` besides: `withPortForward`);
 * `npm run test-cluster -- stop DIR` stops it and removes its files.
 */
import path from 'node:path';
import { KaddonError } from '../../src/core/errors.ts';
import { ClusterError } from './cluster-error.ts';
import { clusterLayout, removeLayout } from './cluster-layout.ts';
import { isClusterRunning, readClusterState, recordedServers, type ClusterState } from './cluster-state.ts';
import { stopPid } from './server-process.ts';
import { startTestCluster } from './test-cluster.ts';

const usage =
  'Usage: npm run test-cluster -- start DIR [--with-controllers [--with-port-forward]] | stop DIR';

async function start(dir: string, withControllers: boolean, withPortForward: boolean): Promise<void> {
  const running = readClusterState(clusterLayout(dir).state);
  if (running && isClusterRunning(running)) {
    const hint = 'Stop it first with `npm run test-cluster -- stop DIR`, or pick another DIR.';
    throw new ClusterError('cluster-running', `test cluster '${dir}'`, 'already runs there', hint);
  }
  const cluster = await startTestCluster({ dir, detached: true, withControllers, withPortForward });
  process.stdout.write(`${cluster.kubeconfigPath}\n`);
}

async function stop(dir: string): Promise<void> {
  const layout = clusterLayout(dir);
  const state = readState(layout.state);
  // Clients before the apiserver, the apiserver before etcd: each would log the other's absence.
  for (const server of recordedServers(state)) await stopPid(server.pid, server.binary);
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
  const [command, dir, ...flags] = argv;
  const withControllers = flags.includes('--with-controllers');
  const withPortForward = flags.includes('--with-port-forward');
  const known = command === 'start' ? ['--with-controllers', '--with-port-forward'] : [];
  if (!dir || (command !== 'start' && command !== 'stop') || flags.some((flag) => !known.includes(flag))) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  try {
    if (command === 'start') await start(path.resolve(dir), withControllers, withPortForward);
    else await stop(path.resolve(dir));
    return 0;
  } catch (error: unknown) {
    if (!(error instanceof KaddonError)) throw error;
    process.stderr.write(`${error.describe()}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
