import { describeDeliveryFaults } from './delivery-faults.ts';

/** The delivery faults of delivery-faults.ts with KADDON_DELIVERY=helm (docs/delivery.md). */
describeDeliveryFaults('helm');
