import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterLayout, removeLayout } from './cluster-layout.ts';
import { isClusterRunning, readClusterState } from './cluster-state.ts';

/** The prefix of the directories `startTestCluster` makes under the OS temp dir. */
export const clusterDirPrefix = 'kaddon-cluster-';

/**
 * Removes the temp directories of clusters whose runner was SIGKILLed: their servers died with it
 * (PR_SET_PDEATHSIG), but nothing was left to delete their files. A directory counts as abandoned
 * once it has a state file and none of the servers recorded there runs any more.
 */
export function removeAbandonedClusters(): void {
  for (const entry of readdirSync(os.tmpdir())) {
    if (!entry.startsWith(clusterDirPrefix)) continue;
    const layout = clusterLayout(path.join(os.tmpdir(), entry));
    const state = readClusterState(layout.state);
    if (state && !isClusterRunning(state)) removeLayout(layout);
  }
}
