import { KaddonError } from '../../core/errors.ts';
import type { ApplyApi } from '../drift/release-objects.ts';
import type { HelmClient } from '../helm/helm-client.ts';
import { ReleaseEngine, type DeliveryEngine } from './release-engine.ts';

class DeliveryStorageError extends KaddonError {
  readonly code = 'delivery-storage';
  constructor(driver: string) {
    super(
      `setting 'KADDON_DELIVERY': native delivery writes helm's secret storage, but HELM_DRIVER is '${driver}'.`,
      'Unset HELM_DRIVER (or set it to secret), or keep KADDON_DELIVERY=helm.',
    );
  }
}

/**
 * The operator's releases for KADDON_DELIVERY (docs/delivery.md): a ReleaseEngine that reads helm's
 * Secret storage directly; with another HELM_DRIVER the helm binary does everything, as before:
 * said through `onBinaryStorage` when the engine is the default, refused when `native` was chosen.
 */
export function selectReleaseEngine(
  engine: DeliveryEngine,
  options: {
    /** Whether KADDON_DELIVERY was set; when not, another HELM_DRIVER falls back to the binary. */
    readonly chosen: boolean;
    readonly onBinaryStorage: (driver: string) => void;
    readonly api: ApplyApi;
    readonly writeApi?: ApplyApi;
    readonly helm: HelmClient;
    readonly helmDriver: string | undefined;
    readonly historyMax: number;
    readonly stopSignal?: AbortSignal;
    readonly onHooks?: (release: string) => void;
  },
): HelmClient | ReleaseEngine {
  const driver = options.helmDriver ?? '';
  if (!['', 'secret', 'secrets'].includes(driver)) {
    if (engine === 'native') {
      if (options.chosen) throw new DeliveryStorageError(driver);
      options.onBinaryStorage(driver);
    }
    return options.helm;
  }
  return new ReleaseEngine({ engine, ...options });
}
