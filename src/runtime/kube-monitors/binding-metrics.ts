import type { KubernetesBinding } from '../../hooks/hook-config.ts';
import type { BindingLabels, OperatorMetrics } from '../../observability/metrics.ts';

/** The OperatorMetrics verbs a kubernetes binding records (docs/observability.md "Metrics"). */
export type KubeBindingMetrics = Pick<OperatorMetrics, 'jqFilter' | 'kubeEvent' | 'snapshot'>;

/** The hook a binding belongs to, named as hook-run metrics name it; no module for a global hook. */
export interface HookMetricLabels {
  readonly hook: string;
  readonly module?: string | undefined;
}

/**
 * One binding's kube_jq_filter_duration_seconds, kube_event_duration_seconds and
 * kube_snapshot_{objects,bytes}, with the labels fixed once (module, hook, binding, queue, kind).
 * Without metrics it only runs what it is given.
 */
export class BindingMetrics {
  readonly #metrics: KubeBindingMetrics | undefined;
  readonly #labels: BindingLabels;
  readonly #kind: string;
  readonly #now: () => number;

  constructor(
    metrics: KubeBindingMetrics | undefined,
    hook: HookMetricLabels,
    binding: KubernetesBinding,
    now: () => number = () => performance.now(),
  ) {
    this.#metrics = metrics;
    this.#labels = { module: hook.module, hook: hook.hook, binding: binding.name, queue: binding.queue };
    this.#kind = binding.kind;
    this.#now = now;
  }

  /** Runs the filter step (jqFilter and checksum) of one object or one list; timed even when it throws. */
  filter<T>(run: () => T): T {
    return this.#timed(run, (seconds) => {
      this.#metrics?.jqFilter({ ...this.#labels, kind: this.#kind }, seconds);
    });
  }

  /** Handles one watch event, from the filter to the task it raises. */
  event<T>(run: () => T): T {
    return this.#timed(run, (seconds) => {
      this.#metrics?.kubeEvent({ ...this.#labels, kind: this.#kind }, seconds);
    });
  }

  snapshot(size: { readonly objects: number; readonly bytes: number }): void {
    this.#metrics?.snapshot(this.#labels, size);
  }

  #timed<T>(run: () => T, observe: (seconds: number) => void): T {
    if (this.#metrics === undefined) return run();
    const startedAt = this.#now();
    try {
      return run();
    } finally {
      observe((this.#now() - startedAt) / 1000);
    }
  }
}
