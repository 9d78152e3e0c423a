import { parseArgs } from 'node:util';
import { loadJqEngine } from '../../src/jq/jq-engine.ts';
import { startOperatorEnvironment } from '../operator/operator-e2e-kit.ts';
import { checkTree, describeFailure, type Delivery } from './differential-check.ts';

/**
 * `npm run fuzz:delivery -- [--trees 50] [--edits 40] [--seed 1000] [--delivery native|helm]` (and
 * the second half of `npm run fuzz`, with these defaults): the delivery differential check of npm test, run long (docs/testing.md "Differential delivery
 * check"). Trees are seeds `seed`, `seed + 1`, …; each runs `edits` values edits in an operator of
 * its own on one test cluster. Prints each tree's outcome, the totals, and a reproduction of the
 * first failure; exits 1 when anything differed.
 */
const { values } = parseArgs({
  // `npm run fuzz -- --runs N` hands the hostile fuzz's flags to this half too: they are not ours.
  strict: false,
  options: {
    trees: { type: 'string', default: '50' },
    edits: { type: 'string', default: '40' },
    seed: { type: 'string', default: '1000' },
    delivery: { type: 'string', default: 'native' },
  },
});
const delivery: Delivery = values.delivery === 'helm' ? 'helm' : 'native';
const trees = Number(values.trees);
const edits = Number(values.edits);
const firstSeed = Number(values.seed);

const env = await startOperatorEnvironment({ namespace: 'kaddon-fuzz-delivery', prefix: 'fuzz-delivery' });
const jq = await loadJqEngine();
const started = performance.now();
let failed = 0;
try {
  for (let seed = firstSeed; seed < firstSeed + trees; seed++) {
    const treeStarted = performance.now();
    const failure = await checkTree({ env, jq, delivery }, seed, edits);
    const seconds = ((performance.now() - treeStarted) / 1000).toFixed(1);
    console.log(
      `seed ${String(seed)}: ${failure ? `FAILED at edit ${String(failure.edit)}` : 'no difference'} (${seconds} s)`,
    );
    if (failure) {
      failed++;
      console.log(describeFailure(failure));
    }
  }
} finally {
  await env.stop();
}
const minutes = ((performance.now() - started) / 60_000).toFixed(1);
console.log(
  `${String(trees)} trees, ${String(trees * edits)} edits, KADDON_DELIVERY=${delivery}, in ${minutes} min: ${String(failed)} tree(s) with differences`,
);
if (failed > 0) process.exitCode = 1;
