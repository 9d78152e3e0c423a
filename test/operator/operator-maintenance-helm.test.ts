import { describe } from 'node:test';
import { describeMaintenance } from './maintenance-cases.ts';

/**
 * The maintenance cases of maintenance-cases.ts with KADDON_DELIVERY=helm, whose end of maintenance
 * is helm's --force-conflicts, in a suite of this file's own so that the test runner counts their
 * time to this file.
 */
describe('KADDON_DELIVERY=helm', () => {
  describeMaintenance('helm');
});
