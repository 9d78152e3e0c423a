import type { SecretMask } from '../../core/secret-mask.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { Logger } from '../../observability/logger.ts';
import type { KubeBindingMetrics } from './binding-metrics.ts';
import { HookMonitor, type MonitoredHook } from './hook-monitor.ts';
import type { KubeBindingTask } from './kube-binding-task.ts';
import { ResourceResolver } from './resolve-resource.ts';
import type { ListWatchTiming, WatchApi, WatchCounters } from '../../delivery/list-watch.ts';
import { ResourceWatchPool } from './resource-watch-pool.ts';

export interface KubeMonitorsOptions {
  /** A KubeClient. */
  readonly api: WatchApi;
  /** Loaded (loadJqEngine), so filters run synchronously. */
  readonly jq: JqEngine;
  readonly logger: Logger;
  /** jqFilter and event durations, snapshot sizes; OperatorMetrics in the operator. */
  readonly metrics?: KubeBindingMetrics | undefined;
  /** Receives every Synchronization and Event task, in order. */
  readonly onTask: (task: KubeBindingTask) => void;
  /** Defaults: the system clock, watches of 5–10 min, a silent connection broken after 11 min. */
  readonly timing?: Partial<ListWatchTiming>;
  /** Learns the values of the Secrets bindings see (docs/hooks.md "What of a hook's output leaves the operator"). */
  readonly secrets?: SecretMask | undefined;
}

export interface KubeMonitorsStats extends WatchCounters {
  /** Distinct list/watches running now (one per resource, namespace and selectors). */
  readonly activeWatches: number;
}

/**
 * The kubernetes bindings of every started hook (docs/lifecycle.md steps 2, 9, 10): list/watches shared
 * between bindings that select the same objects, a snapshot per binding, and the tasks they raise.
 */
export class KubeMonitors {
  readonly #options: KubeMonitorsOptions;
  readonly #resolver: ResourceResolver;
  readonly #pool: ResourceWatchPool;
  readonly #hooks = new Map<string, HookMonitor>();

  constructor(options: KubeMonitorsOptions) {
    this.#options = options;
    this.#resolver = new ResourceResolver(options.api);
    this.#pool = new ResourceWatchPool({
      api: options.api,
      logger: options.logger,
      ...(options.timing ? { timing: options.timing } : {}),
    });
  }

  get stats(): KubeMonitorsStats {
    return { ...this.#pool.counters, activeWatches: this.#pool.size };
  }

  /**
   * Lists every kubernetes binding of the hook, emits its Synchronization tasks (bindings with
   * executeHookOnSynchronization: false only build their snapshot), then follows watch events.
   * Rejects with KubeMonitorError when a kind cannot be resolved; nothing of the hook keeps running.
   */
  async startHook(hook: MonitoredHook): Promise<HookMonitor> {
    if (this.#hooks.has(hook.id)) throw new Error(`hook '${hook.id}' is already monitored`);
    const monitor = new HookMonitor(hook, {
      resolver: this.#resolver,
      pool: this.#pool,
      jq: this.#options.jq,
      logger: this.#options.logger.child({ module: hook.labels?.module, hook: hook.labels?.hook ?? hook.id }),
      metrics: this.#options.metrics,
      emit: this.#options.onTask,
      secrets: this.#options.secrets,
    });
    this.#hooks.set(hook.id, monitor);
    try {
      await monitor.start();
    } catch (error: unknown) {
      if (this.#hooks.get(hook.id) === monitor) this.#hooks.delete(hook.id);
      throw error;
    }
    return monitor;
  }

  hook(id: string): HookMonitor | undefined {
    return this.#hooks.get(id);
  }

  /** Stops a hook's bindings (a disabled module); its watches end when no other binding uses them. */
  async stopHook(id: string): Promise<void> {
    const monitor = this.#hooks.get(id);
    this.#hooks.delete(id);
    await monitor?.stop();
  }

  /** Ends every watch. */
  async stop(): Promise<void> {
    const monitors = [...this.#hooks.values()];
    this.#hooks.clear();
    await Promise.all(monitors.map((monitor) => monitor.stop()));
    await this.#pool.stopAll();
  }
}
