import { describeMaintenance } from './maintenance-cases.ts';

/** The cases of maintenance-cases.ts with KADDON_DELIVERY=native (docs/operations.md). */
describeMaintenance('native');
