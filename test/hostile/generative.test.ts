import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  buildBoth,
  buildModulesTree,
  checkOutcome,
  kustomizationTree,
  modulesTree,
} from './kustomization-arbitrary.ts';
import { hasKubectl } from '../kubectl.ts';
import { buildHostileTree, describeHostileTree, hostileTree } from './hostile-arbitrary.ts';

/**
 * Random kustomizations, broken ones included (test/hostile/kustomization-arbitrary.ts): kaddon exits
 * 0 or 1, never prints a stack, names a file when it refuses, and prints what `kubectl kustomize`
 * prints whenever kubectl builds the same directory. A bounded run here; `npm run fuzz -- --runs N`
 * runs longer.
 */
describe('generated kustomizations and modules trees', () => {
  const withKubectl = hasKubectl();
  it(`behave as kustomize's, or fail cleanly (${withKubectl ? 'compared with kubectl' : 'kubectl absent: kaddon alone'})`, async () => {
    await fc.assert(
      fc.asyncProperty(kustomizationTree, async (files) => {
        checkOutcome(files, await buildBoth(files, withKubectl));
      }),
      { numRuns: 40, seed: 20261124 },
    );
  });

  it('modules trees with values and $(var) references build, or fail cleanly naming a file', async () => {
    await fc.assert(
      fc.asyncProperty(modulesTree, async (files) => {
        checkOutcome(files, await buildModulesTree(files));
      }),
      { numRuns: 30, seed: 20261124 },
    );
  });

  it('hostile trees (depth, size, named pipes, bytes) fail cleanly naming a file, or build', async () => {
    await fc.assert(
      fc.asyncProperty(hostileTree, async (files) => {
        checkOutcome(describeHostileTree(files), await buildHostileTree(files));
      }),
      { numRuns: 40, seed: 20261125 },
    );
  });
});
