import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesBinding } from '../../hooks/hook-config.ts';
import { loadJqEngine } from '../../jq/jq-engine.ts';
import { filterObject, filterObjects } from './binding-filter.ts';

const base: KubernetesBinding = {
  name: 'watched',
  kind: 'ConfigMap',
  executeHookOnEvent: ['Added', 'Modified', 'Deleted'],
  executeHookOnSynchronization: true,
  waitForSynchronization: true,
  keepFullObjectsInMemory: true,
  allowFailure: false,
  queue: 'main',
  includeSnapshotsFrom: [],
};

const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'café', namespace: 'web' } };
const objectBytes = Buffer.byteLength(JSON.stringify(object));

describe('filterObject sizes (docs/observability.md "Metrics": kube_snapshot_bytes)', () => {
  it('counts the JSON bytes of what the snapshot item holds: the object, the filter result, or both', async () => {
    const jq = await loadJqEngine();
    const name = Buffer.byteLength('"café"');
    const where = 'test jqFilter';
    assert.equal(filterObject(jq, base, object, where).bytes, objectBytes);
    assert.equal(
      filterObject(jq, { ...base, jqFilter: '.metadata.name' }, object, where).bytes,
      objectBytes + name,
    );
    const resultOnly = { ...base, jqFilter: '.metadata.name', keepFullObjectsInMemory: false };
    assert.equal(filterObject(jq, resultOnly, object, where).bytes, name);
    assert.equal(filterObject(jq, { ...base, keepFullObjectsInMemory: false }, object, where).bytes, 0);
  });

  it('gives a list filtered in one jq call the same sizes and checksums as one object at a time', async () => {
    const jq = await loadJqEngine();
    const binding = { ...base, jqFilter: '{name: .metadata.name}' };
    const objects = [1, 2, 3, 4, 5].map((i) => ({
      ...object,
      metadata: { name: `cm-${i}`, namespace: 'web' },
    }));
    const batched = filterObjects(jq, binding, objects, 'test', () => undefined);
    const single = objects.map((one) => filterObject(jq, binding, one, 'test'));
    assert.deepEqual(batched, single);
  });
});
