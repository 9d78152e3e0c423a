import type { BindingContext } from '../../hooks/binding-context.ts';

/**
 * What a kubernetes binding asks of the queue layer: run hook `hookId` with `contexts` in `queue`
 * (docs/lifecycle.md steps 2, 9 and 10). One task per Synchronization or watch event.
 */
export interface KubeBindingTask {
  /** The id the hook was started under (KubeMonitors.startHook). */
  readonly hookId: string;
  /** The binding's name. */
  readonly binding: string;
  readonly type: 'Synchronization' | 'Event';
  readonly contexts: readonly BindingContext[];
  readonly queue: string;
  readonly allowFailure: boolean;
  /**
   * For a Synchronization task: whether beforeAll/beforeHelm wait for this task to be done
   * (docs/hooks.md "Binding contexts"). Always false for Event tasks.
   */
  readonly waitForSynchronization: boolean;
}
