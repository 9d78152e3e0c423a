import { describe } from 'node:test';
import { describeDeliveryFaults } from './delivery-faults.ts';

/**
 * The delivery faults of delivery-faults.ts with KADDON_DELIVERY=native (docs/delivery.md), in a
 * suite of this file's own so that the test runner counts their time to this file.
 */
describe('KADDON_DELIVERY=native', () => {
  describeDeliveryFaults('native');
});
