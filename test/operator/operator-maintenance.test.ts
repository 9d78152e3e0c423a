import { describe } from 'node:test';
import { describeMaintenance } from './maintenance-cases.ts';

/**
 * The cases of maintenance-cases.ts with KADDON_DELIVERY=native (docs/operations.md), in a suite of
 * this file's own so that the test runner counts their time to this file.
 */
describe('KADDON_DELIVERY=native', () => {
  describeMaintenance('native');
});
