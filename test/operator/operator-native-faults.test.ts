import { describeDeliveryFaults } from './delivery-faults.ts';

/** The delivery faults of delivery-faults.ts with KADDON_DELIVERY=native (docs/delivery.md). */
describeDeliveryFaults('native');
