import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildBoth, checkOutcome, hasKubectl, kustomizationTree } from './kustomization-arbitrary.ts';

/**
 * Random kustomizations, broken ones included (test/hostile/kustomization-arbitrary.ts): kaddon exits
 * 0 or 1, never prints a stack, names a file when it refuses, and prints what `kubectl kustomize`
 * prints whenever kubectl builds the same directory. A bounded run here; `npm run fuzz -- --runs N`
 * runs longer.
 */
describe('generated kustomizations', () => {
  const withKubectl = hasKubectl();
  it(`behave as kustomize's, or fail cleanly (${withKubectl ? 'compared with kubectl' : 'kubectl absent: kaddon alone'})`, async () => {
    await fc.assert(
      fc.asyncProperty(kustomizationTree, async (files) => {
        checkOutcome(files, await buildBoth(files, withKubectl));
      }),
      { numRuns: 40, seed: 20261124 },
    );
  });
});
