import type { SecretMask } from '../../core/secret-mask.ts';
import type { ApiResource } from '../../delivery/kube-client.ts';
import {
  eventContext,
  synchronizationContext,
  type ObjectAndFilterResult,
  type Snapshots,
} from '../../hooks/binding-context.ts';
import type { HookConfig, KubernetesBinding, WatchEvent } from '../../hooks/hook-config.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { Logger } from '../../observability/logger.ts';
import { BindingMetrics, type HookMetricLabels, type KubeBindingMetrics } from './binding-metrics.ts';
import { BindingMonitor } from './binding-monitor.ts';
import type { KubeBindingTask } from './kube-binding-task.ts';
import { KubeMonitorError } from './kube-monitor-error.ts';
import { NamespaceSelection } from './namespace-selection.ts';
import type { ResourceResolver } from './resolve-resource.ts';
import type { ResourceWatchPool } from './resource-watch-pool.ts';

/** A hook whose kubernetes bindings are monitored. */
export interface MonitoredHook {
  /** Unique among started hooks; tasks carry it back. */
  readonly id: string;
  readonly config: HookConfig;
  /** How metrics and logs name the hook; its id as the hook name when absent. */
  readonly labels?: HookMetricLabels;
}

export interface HookMonitorDeps {
  readonly resolver: ResourceResolver;
  readonly pool: ResourceWatchPool;
  readonly jq: JqEngine;
  readonly logger: Logger;
  readonly metrics?: KubeBindingMetrics | undefined;
  readonly emit: (task: KubeBindingTask) => void;
  readonly secrets?: SecretMask | undefined;
}

/**
 * The kubernetes bindings of one hook. They see each other's snapshots (group and
 * includeSnapshotsFrom), so they start together: every first list, then one Synchronization per
 * binding (docs/lifecycle.md step 2), then the watch events.
 */
export class HookMonitor {
  readonly hook: MonitoredHook;
  /** Resolves once every binding's snapshot is built and its Synchronization task emitted. */
  readonly synchronized: Promise<void>;
  readonly #deps: HookMonitorDeps;
  #bindings: BindingMonitor[] = [];
  #selections: NamespaceSelection[] = [];
  #isSynchronized = false;
  #markSynchronized: () => void = () => undefined;

  constructor(hook: MonitoredHook, deps: HookMonitorDeps) {
    this.hook = hook;
    this.#deps = deps;
    this.synchronized = new Promise((resolve) => (this.#markSynchronized = resolve));
  }

  get isSynchronized(): boolean {
    return this.#isSynchronized;
  }

  /** The current objects of every binding, by binding name, each sorted by namespace and name. */
  snapshots(): Snapshots {
    return Object.fromEntries(this.#bindings.map((monitor) => [monitor.binding.name, monitor.snapshot()]));
  }

  async start(): Promise<void> {
    try {
      const resources = await Promise.all(
        this.hook.config.kubernetes.map((binding) => this.#resolve(binding)),
      );
      this.#bindings = this.hook.config.kubernetes.map(
        (binding, i) =>
          new BindingMonitor(binding, this.#label(binding), resources[i] as ApiResource, {
            ...this.#deps,
            measure: new BindingMetrics(
              this.#deps.metrics,
              this.hook.labels ?? { hook: this.hook.id },
              binding,
            ),
            onChange: (watchEvent, item) => {
              this.#emitEvent(binding, watchEvent, item);
            },
          }),
      );
      await Promise.all(this.#bindings.map((monitor) => this.#watchNamespaces(monitor)));
    } catch (error: unknown) {
      await this.stop();
      throw error;
    }
    this.#emitSynchronizations();
    this.#isSynchronized = true;
    this.#markSynchronized();
    for (const monitor of this.#bindings) monitor.release();
  }

  async stop(): Promise<void> {
    const selections = this.#selections;
    const bindings = this.#bindings;
    this.#selections = [];
    this.#bindings = [];
    await Promise.all(selections.map((selection) => selection.stop()));
    await Promise.all(bindings.map((monitor) => monitor.stop()));
  }

  /** Namespaces as docs/hooks.md "kubernetes" describes: a label selector wins over names; none means all. */
  async #watchNamespaces(monitor: BindingMonitor): Promise<void> {
    const { namespace } = monitor.binding;
    if (namespace?.labelSelector) {
      const selection = new NamespaceSelection(
        this.#deps.pool,
        monitor,
        this.#label(monitor.binding),
        this.#deps.logger,
      );
      this.#selections.push(selection);
      await selection.start(namespace.labelSelector);
      return;
    }
    const names = [...new Set(namespace?.nameSelector?.matchNames ?? [])];
    await Promise.all((names.length > 0 ? names : ['']).map((name) => monitor.addNamespace(name)));
  }

  #emitSynchronizations(): void {
    for (const monitor of this.#bindings) {
      const { binding } = monitor;
      if (!binding.executeHookOnSynchronization) continue;
      const context = synchronizationContext(
        this.hook.config,
        binding,
        monitor.snapshot(),
        this.#snapshotsFor(binding),
      );
      this.#emit(binding, 'Synchronization', context);
    }
  }

  #emitEvent(binding: KubernetesBinding, watchEvent: WatchEvent, item: ObjectAndFilterResult): void {
    if (!binding.executeHookOnEvent.includes(watchEvent)) return;
    const context = eventContext(this.hook.config, binding, watchEvent, item, this.#snapshotsFor(binding));
    this.#emit(binding, 'Event', context);
  }

  #emit(
    binding: KubernetesBinding,
    type: KubeBindingTask['type'],
    context: KubeBindingTask['contexts'][number],
  ): void {
    this.#deps.emit({
      hookId: this.hook.id,
      binding: binding.name,
      type,
      contexts: [context],
      queue: binding.queue,
      allowFailure: binding.allowFailure,
      waitForSynchronization: type === 'Synchronization' && binding.waitForSynchronization,
    });
  }

  /** Sorting every snapshot costs; only bindings that include snapshots need them. */
  #snapshotsFor(binding: KubernetesBinding): Snapshots {
    return binding.includeSnapshotsFrom.length > 0 ? this.snapshots() : {};
  }

  async #resolve(binding: KubernetesBinding): Promise<ApiResource> {
    const label = this.#label(binding);
    const apiVersion = binding.apiVersion ?? '';
    let resource: ApiResource | undefined;
    try {
      resource = await this.#deps.resolver.resolve(binding.apiVersion, binding.kind);
    } catch (error: unknown) {
      throw new KubeMonitorError(
        'kube-monitor-discovery-failed',
        label,
        binding.name,
        `API discovery failed while resolving kind '${binding.kind}'`,
        'The API server may be unavailable; the binding is retried with backoff.',
        { cause: error },
      );
    }
    if (resource) return resource;
    throw new KubeMonitorError(
      'kube-monitor-resource-unknown',
      label,
      binding.name,
      `the API server serves no kind '${binding.kind}'${apiVersion ? ` in '${apiVersion}'` : ''}`,
      'Create the CustomResourceDefinition first, or correct apiVersion and kind in the hook config.',
    );
  }

  #label(binding: KubernetesBinding): string {
    return `${this.hook.id}/${binding.name}`;
  }
}
