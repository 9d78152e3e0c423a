import { KaddonError } from '../../core/errors.ts';

export type KubeMonitorErrorCode = 'kube-monitor-resource-unknown' | 'kube-monitor-discovery-failed';

/** A kubernetes binding that cannot start; the task that enables the hook's bindings retries it. */
export class KubeMonitorError extends KaddonError {
  readonly code: KubeMonitorErrorCode;
  readonly binding: string;

  constructor(
    code: KubeMonitorErrorCode,
    label: string,
    binding: string,
    problem: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(`kubernetes binding '${label}': ${problem}.`, hint, options);
    this.code = code;
    this.binding = binding;
  }
}
