import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadJqEngine, type JqEngine } from '../../src/jq/jq-engine.ts';
import { startOperatorEnvironment, type OperatorEnvironment } from '../operator/operator-e2e-kit.ts';
import { checkTree, describeFailure, type Delivery } from './differential-check.ts';

/**
 * The delivery differential check's fixed short sample (docs/testing.md "Differential delivery
 * check"); `npm run fuzz:delivery` runs it long. Each seed is a generated tree and its edits.
 */
const SAMPLE: Readonly<Record<Delivery, { seeds: readonly number[]; edits: number }>> = {
  native: { seeds: [1, 2], edits: 8 },
  helm: { seeds: [3], edits: 5 },
};

let env: OperatorEnvironment;
let jq: JqEngine;

before(async () => {
  env = await startOperatorEnvironment({ namespace: 'kaddon-differential', prefix: 'differential' });
  jq = await loadJqEngine();
});
after(() => env.stop());

describe('after each settled edit, the releases and the cluster hold what a fresh build gives', () => {
  for (const [delivery, { seeds, edits }] of Object.entries(SAMPLE) as [
    Delivery,
    (typeof SAMPLE)[Delivery],
  ][])
    for (const seed of seeds)
      it(`KADDON_DELIVERY=${delivery}, seed ${String(seed)}, ${String(edits)} edits`, async () => {
        const failure = await checkTree({ env, jq, delivery }, seed, edits);
        assert.equal(failure, undefined, failure && describeFailure(failure));
      });
});
