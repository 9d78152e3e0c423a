import { EventRecorder } from '../../delivery/event-recorder.ts';
import { ModuleObjects } from '../../delivery/module-objects.ts';
import { ModuleRequests, type ModuleRequest } from '../../delivery/module-requests.ts';
import { settlesWithin, systemClock } from '../../core/clock.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { DeliveredHealth, type DeliveredHealthOptions, type HealthApi } from './delivered-health.ts';
import { ModuleStatusPublisher } from './module-status-publisher.ts';
import { ModuleStatusTracker, type ModuleStatusListener } from './module-status-tracker.ts';

export interface ModuleStatusServiceOptions {
  /** Health watches of delivered objects. */
  readonly api: HealthApi;
  /**
   * Module objects and Events: a client with a limit of its own (docs/module-status.md "Writes"),
   * so that status at 1,000 modules neither waits behind nor starves the main client; `api` when
   * not given.
   */
  readonly writeApi?: HealthApi;
  /** How long a stop waits for status writes not yet sent (STOP_FLUSH_MS by default). */
  readonly stopFlushMs?: number;
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  /** ADDON_OPERATOR_NAMESPACE: the default namespace of delivered objects. */
  readonly namespace: string;
  readonly healthTimeoutMs: (module: string) => number;
  /** Events' reportingInstance: `kaddon-<pod name>`. */
  readonly instance: string;
  /** KADDON_MODULE_STATUS=off: metrics only, no Module objects, Events or health watches. */
  readonly enabled: boolean;
  /** More listeners beside the Module objects', e.g. the status page's Event log. */
  readonly listeners?: readonly ModuleStatusListener[];
  /** Told of every watch event of a delivered object the health watches see (DeliveredHealth). */
  readonly onObjectEvent?: DeliveredHealthOptions['onObjectEvent'];
  /** Told when a module's objects are no longer followed (DeliveredHealth). */
  readonly onForget?: DeliveredHealthOptions['onForget'];
  /** Masks secret values in messages and Events' notes (core/secret-mask.ts). */
  readonly mask?: (text: string) => string;
}

/** Module status as the operator runs it (docs/module-status.md): tracker, health, objects, events. */
export interface ModuleStatusService {
  readonly tracker: ModuleStatusTracker;
  readonly health: DeliveredHealth | undefined;
  /**
   * Follows what people on call ask on the Module objects (docs/operations.md) and resolves once
   * they are listed (30 s at most), so that maintenance is known before the first delivery; false
   * when module status is off.
   */
  followRequests(onRequest: (module: string, request: ModuleRequest) => void): Promise<boolean>;
  stop(): Promise<void>;
}

/** How long a start waits for the Module objects' list before it goes on without their requests. */
const REQUESTS_LISTED_WAIT_MS = 30_000;

/** How often Module objects deleted behind kaddon's back are looked for (docs/module-status.md "Recovery"). */
const MODULE_OBJECTS_RESYNC_MS = 20_000;
/**
 * How long a stop waits for Module status writes still queued (docs/module-status.md "Writes"):
 * the process must exit within its stop limit (docs/lifecycle.md "Stopping"), and the next
 * operator writes every module's status anew.
 */
const STOP_FLUSH_MS = 3_000;

export async function startModuleStatus(options: ModuleStatusServiceOptions): Promise<ModuleStatusService> {
  const logger = options.logger.child({ component: 'module-status' });
  const writeApi = options.writeApi ?? options.api;
  const objects = options.enabled ? new ModuleObjects(writeApi, logger) : undefined;
  await objects?.start({ manageCrd: true, resyncMs: MODULE_OBJECTS_RESYNC_MS });
  const events = objects?.enabled
    ? new EventRecorder(writeApi, logger, { instance: options.instance, mask: options.mask })
    : undefined;
  const tracker = new ModuleStatusTracker({
    listeners: [
      new ModuleStatusPublisher({ objects, events, metrics: options.metrics, mask: options.mask }),
      ...(options.listeners ?? []),
    ],
    healthTimeoutMs: options.healthTimeoutMs,
    existing: objects?.known() ?? [],
    followsHealth: options.enabled,
  });
  const health = options.enabled
    ? new DeliveredHealth({
        api: options.api,
        defaultNamespace: options.namespace,
        logger,
        onHealth: (module, result) => {
          tracker.health(module, result);
        },
        ...(options.onObjectEvent ? { onObjectEvent: options.onObjectEvent } : {}),
        ...(options.onForget ? { onForget: options.onForget } : {}),
      })
    : undefined;
  let requests: ModuleRequests | undefined;
  return {
    tracker,
    health,
    followRequests: async (onRequest) => {
      if (objects?.enabled !== true) return false;
      requests = new ModuleRequests({ api: options.api, logger, onRequest });
      const listed = await settlesWithin(systemClock, requests.start(), REQUESTS_LISTED_WAIT_MS);
      if (!listed)
        logger.warn('the Module objects were not listed in time: maintenance is read once they are', {
          waitedMs: REQUESTS_LISTED_WAIT_MS,
        });
      return true;
    },
    stop: async () => {
      await requests?.stop();
      tracker.stop();
      events?.stop();
      await health?.stop();
      objects?.stop();
      await objects?.flush(options.stopFlushMs ?? STOP_FLUSH_MS);
    },
  };
}
