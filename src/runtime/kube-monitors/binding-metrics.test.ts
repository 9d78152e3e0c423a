import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesBinding } from '../../hooks/hook-config.ts';
import { createOperatorMetrics } from '../../observability/metrics.ts';
import { BindingMetrics } from './binding-metrics.ts';

const binding: KubernetesBinding = {
  name: 'watched',
  apiVersion: 'v1',
  kind: 'ConfigMap',
  jqFilter: '.metadata.name',
  executeHookOnEvent: ['Added', 'Modified', 'Deleted'],
  executeHookOnSynchronization: true,
  waitForSynchronization: true,
  keepFullObjectsInMemory: true,
  allowFailure: false,
  queue: 'watchers',
  includeSnapshotsFrom: [],
};

/** A clock that moves 250 ms each time it is read. */
function steppingClock(): () => number {
  let now = 0;
  return () => (now += 250);
}

function sample(text: string, name: string): string | undefined {
  return new RegExp(`^addon_operator_${name}(\\{[^}]*\\} \\S+)$`, 'mu').exec(text)?.[1];
}

describe('BindingMetrics (docs/observability.md "Metrics")', () => {
  it("records filter and event durations with the binding's module, hook, binding, queue and kind", async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    const measure = new BindingMetrics(
      metrics,
      { module: 'watcher', hook: 'hooks/watch.mjs' },
      binding,
      steppingClock(),
    );
    assert.equal(
      measure.event(() => measure.filter(() => 'filtered')),
      'filtered',
    );
    const text = await metrics.registry.metrics();
    const labels =
      'module="watcher",hook="hooks/watch.mjs",binding="watched",queue="watchers",kind="ConfigMap"';
    assert.equal(sample(text, 'kube_jq_filter_duration_seconds_count'), `{${labels}} 1`);
    assert.equal(sample(text, 'kube_jq_filter_duration_seconds_sum'), `{${labels}} 0.25`);
    assert.equal(sample(text, 'kube_event_duration_seconds_sum'), `{${labels}} 0.75`);
  });

  it('times a filter that throws, and reports snapshot sizes without a kind; a global hook has an empty module', async () => {
    const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: true });
    const measure = new BindingMetrics(metrics, { hook: 'watch.sh' }, binding, steppingClock());
    assert.throws(() =>
      measure.filter(() => {
        throw new Error('jq failed');
      }),
    );
    measure.snapshot({ objects: 3, bytes: 120 });
    const text = await metrics.registry.metrics();
    const labels = 'module="",hook="watch.sh",binding="watched",queue="watchers"';
    assert.equal(sample(text, 'kube_jq_filter_duration_seconds_count'), `{${labels},kind="ConfigMap"} 1`);
    assert.equal(sample(text, 'kube_snapshot_objects'), `{${labels}} 3`);
    assert.equal(sample(text, 'kube_snapshot_bytes'), `{${labels}} 120`);
  });

  it('only runs what it is given when there are no metrics', () => {
    const measure = new BindingMetrics(undefined, { hook: 'watch.sh' }, binding);
    assert.equal(
      measure.event(() => 42),
      42,
    );
    measure.snapshot({ objects: 1, bytes: 1 });
  });
});
