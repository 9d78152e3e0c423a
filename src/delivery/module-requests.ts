import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Logger } from '../observability/logger.ts';
import { ListWatch, type ListWatchTiming, type WatchApi } from './list-watch.ts';
import { MODULE_GROUP, MODULE_VERSION, MODULES_PATH, RECONCILE_REQUEST_ANNOTATION } from './module-crd.ts';

/** What people on call asked of one module on its Module object (docs/operations.md). */
export interface ModuleRequest {
  /** `spec.maintenance` On or NoResourceReconciliation: hands off; undefined when off. */
  readonly maintenance: { readonly hooks: 'Run' | 'Stop' } | undefined;
  /** The `reconcile.kaddon.dev/requestedAt` annotation's value, when set. */
  readonly reconcileRequestedAt: string | undefined;
  /** `status.lastHandledReconcileAt` as the object holds it: a request already answered. */
  readonly lastHandledReconcileAt: string | undefined;
  /** `status.maintenance.since`, kept across restarts. */
  readonly maintenanceSince: string | undefined;
  /** metadata.generation: what status.observedGeneration answers. */
  readonly generation: number;
}

/** The longest annotation value taken as a reconcile request: it is echoed into status. */
const MAX_REQUEST_LENGTH = 256;

/** A Module object's requests; an object a person edited by hand is read defensively. */
export function moduleRequestOf(object: JsonObject): ModuleRequest {
  const spec = isJsonObject(object.spec) ? object.spec : {};
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const status = isJsonObject(object.status) ? object.status : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const requested = annotations[RECONCILE_REQUEST_ANNOTATION];
  const on = spec.maintenance === 'On' || spec.maintenance === 'NoResourceReconciliation';
  const maintenance = isJsonObject(status.maintenance) ? status.maintenance : {};
  return {
    maintenance: on ? { hooks: spec.maintenanceHooks === 'Stop' ? 'Stop' : 'Run' } : undefined,
    reconcileRequestedAt:
      typeof requested === 'string' && requested !== '' && requested.length <= MAX_REQUEST_LENGTH
        ? requested
        : undefined,
    lastHandledReconcileAt:
      typeof status.lastHandledReconcileAt === 'string' ? status.lastHandledReconcileAt : undefined,
    maintenanceSince: typeof maintenance.since === 'string' ? maintenance.since : undefined,
    generation: typeof metadata.generation === 'number' ? metadata.generation : 1,
  };
}

export interface ModuleRequestsOptions {
  readonly api: WatchApi;
  readonly logger: Logger;
  /** Each change of a module's request, and each module's request when first listed. */
  readonly onRequest: (module: string, request: ModuleRequest) => void;
  readonly timing?: Partial<ListWatchTiming>;
}

/**
 * Follows the Module objects for what people on call ask (docs/operations.md): maintenance in
 * `spec`, reconcile requests in an annotation. One list+watch of the cluster-scoped collection on
 * the supervised loop every watch uses (src/delivery/list-watch.ts). Status writes by the operator
 * itself change nothing here: only the request's own fields are compared.
 */
export class ModuleRequests {
  readonly #options: ModuleRequestsOptions;
  readonly #watch: ListWatch;
  readonly #last = new Map<string, string>();

  constructor(options: ModuleRequestsOptions) {
    this.#options = options;
    this.#watch = new ListWatch(
      { path: MODULES_PATH, apiVersion: `${MODULE_GROUP}/${MODULE_VERSION}`, kind: 'Module' },
      {
        api: options.api,
        ...(options.timing ? { timing: options.timing } : {}),
        onFailure: (failure) => {
          const fields = { error: String(failure.status), delayMs: failure.delayMs };
          if (failure.level === 'error') options.logger.warn('the Module watch failed; retrying', fields);
        },
      },
    );
  }

  /** Starts the watch and resolves once the Module objects are listed: their requests are known. */
  async start(): Promise<void> {
    this.#watch.start();
    const objects = await this.#watch.subscribe({
      label: 'module requests',
      onEvent: (event) => {
        this.#seen(event.object, event.type === 'Deleted');
      },
    });
    for (const object of objects) this.#seen(object, false);
  }

  async stop(): Promise<void> {
    await this.#watch.stop();
  }

  #seen(object: JsonObject, deleted: boolean): void {
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    const name = typeof metadata.name === 'string' ? metadata.name : undefined;
    if (name === undefined) return;
    if (deleted) {
      this.#last.delete(name);
      return;
    }
    const request = moduleRequestOf(object);
    const key = JSON.stringify([request.maintenance, request.reconcileRequestedAt, request.generation]);
    if (this.#last.get(name) === key) return;
    this.#last.set(name, key);
    this.#options.onRequest(name, request);
  }
}
