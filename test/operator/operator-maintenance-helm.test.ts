import { describeMaintenance } from './maintenance-cases.ts';

/** The maintenance cases of maintenance-cases.ts with KADDON_DELIVERY=helm, whose end of maintenance is helm's --force-conflicts. */
describeMaintenance('helm');
