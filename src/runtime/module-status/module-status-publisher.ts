import type { JsonObject } from '../../core/json.ts';
import type { EventRecorder } from '../../delivery/event-recorder.ts';
import { MODULE_GROUP, MODULE_VERSION } from '../../delivery/module-crd.ts';
import type { ModuleObjects } from '../../delivery/module-objects.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import { cleanText } from '../../core/untrusted-text.ts';
import { conditionsOf, type ModuleCondition, type ModuleRecord, type ReadyState } from './module-status.ts';
import type { ModuleEvent, ModuleStatusListener } from './module-status-tracker.ts';

export interface ModuleStatusPublisherDeps {
  readonly objects?: ModuleObjects | undefined;
  readonly events?: EventRecorder | undefined;
  readonly metrics: Pick<OperatorMetrics, 'moduleStatus' | 'moduleMaintenance'>;
  readonly clock?: Clock;
  /** Masks secret values (core/secret-mask.ts). */
  readonly mask?: ((text: string) => string) | undefined;
}

/**
 * The longest message kept on the Module object, in bytes: room for an error and a hook's stderr
 * tail, far below the CRD's limit.
 */
const MAX_MESSAGE_BYTES = 4096;

/**
 * A message as it leaves the operator: secrets masked, escapes and control characters out, bounded
 * (docs/hooks.md "What of a hook's output leaves the operator"), at most `maxBytes`. The status page
 * shows the same; its diffs are allowed more.
 */
export function publishedText(
  text: string,
  mask: ((text: string) => string) | undefined,
  maxBytes = MAX_MESSAGE_BYTES,
): string {
  const clean = cleanText(text, { maxBytes: Number.MAX_SAFE_INTEGER, keepLineFeeds: true });
  return cleanText((mask ?? ((same: string) => same))(clean), { maxBytes, keepLineFeeds: true });
}

/**
 * Tells a module's status where it is shown (docs/module-status.md): the Module object's status,
 * the module_ready and module_status_reason metrics, and Events about the Module.
 */
export class ModuleStatusPublisher implements ModuleStatusListener {
  readonly #deps: ModuleStatusPublisherDeps;
  readonly #conditions = new Map<string, ModuleCondition[]>();

  constructor(deps: ModuleStatusPublisherDeps) {
    this.#deps = deps;
  }

  changed(module: string, record: Readonly<ModuleRecord>, ready: ReadyState): void {
    this.#deps.metrics.moduleStatus(module, { ready: ready.status === 'True', reason: ready.reason });
    this.#deps.metrics.moduleMaintenance(module, record.maintenance !== undefined);
    const now = new Date((this.#deps.clock ?? systemClock).now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditions = conditionsOf(ready, this.#conditions.get(module) ?? [], now, record.generation);
    this.#conditions.set(module, conditions);
    this.#deps.objects?.publish(
      module,
      statusBody(record, conditions, (text) => this.#text(text)),
    );
  }

  /**
   * Text for the cluster-scoped Module object: secrets masked, escapes and control characters out,
   * bounded (docs/hooks.md "What of a hook's output leaves the operator").
   */
  #text(text: string): string {
    return publishedText(text, this.#deps.mask);
  }

  removed(module: string): void {
    this.#conditions.delete(module);
    this.#deps.metrics.moduleStatus(module, undefined);
    this.#deps.metrics.moduleMaintenance(module, undefined);
    this.#deps.objects?.remove(module);
  }

  event(module: string, event: ModuleEvent): void {
    this.#deps.events?.record(
      {
        apiVersion: `${MODULE_GROUP}/${MODULE_VERSION}`,
        kind: 'Module',
        name: module,
        uid: this.#deps.objects?.uidOf(module),
      },
      event,
    );
  }
}

function statusBody(
  record: Readonly<ModuleRecord>,
  conditions: readonly ModuleCondition[],
  text: (text: string) => string,
): JsonObject {
  const delivered = record.delivered;
  return {
    observedGeneration: record.generation,
    enabled: record.enabled,
    maintenance:
      record.maintenance === undefined
        ? null
        : {
            since: new Date(record.maintenance.since).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            hooks: record.maintenance.hooks,
            pending: record.maintenance.pending,
          },
    ...(record.lastHandledReconcileAt === undefined
      ? {}
      : { lastHandledReconcileAt: record.lastHandledReconcileAt }),
    conditions: conditions.map((condition) => ({ ...condition, message: text(condition.message) })),
    health: { status: record.health.status, message: text(record.health.message) },
    drift:
      record.drift === undefined
        ? null
        : {
            time: new Date(record.drift.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            objects: record.drift.objects.length,
            corrected: record.drift.corrected,
            message: text(record.drift.objects.slice(0, 10).join('; ')),
          },
    lastDelivered:
      delivered === undefined
        ? null
        : {
            time: new Date(delivered.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            valuesChecksum: delivered.checksum,
            objects: delivered.objects,
            ...(delivered.helmRevision !== undefined ? { helmRevision: delivered.helmRevision } : {}),
            ...(delivered.gitRevision !== undefined ? { gitRevision: delivered.gitRevision } : {}),
          },
  };
}
