import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KustomizeError } from '../core/errors.ts';
import { Resource } from '../core/resource.ts';
import { ResourceAccumulator } from './resource-accumulator.ts';

function configMap(name: string, data: Record<string, string> = {}): Resource {
  return new Resource({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }, `${name}.yaml`);
}

function isDuplicateId(error: unknown): boolean {
  return error instanceof KustomizeError && error.code === 'duplicate-id';
}

describe('ResourceAccumulator', () => {
  it('refuses an object whose id another took by a rename in place', () => {
    const ra = new ResourceAccumulator();
    ra.append(configMap('a'), 'kustomization.yaml');
    ra.append(configMap('b'), 'kustomization.yaml');
    const [, b] = ra.resources;
    assert.ok(b);
    b.metadata().name = 'c';
    assert.throws(() => {
      ra.append(configMap('c'), 'kustomization.yaml');
    }, isDuplicateId);
    ra.append(configMap('b'), 'kustomization.yaml');
    assert.deepEqual(
      ra.resources.map((resource) => resource.name),
      ['a', 'c', 'b'],
    );
  });

  it('accepts an id again once the object holding it is removed', () => {
    const ra = new ResourceAccumulator();
    const first = configMap('a');
    ra.append(first, 'kustomization.yaml');
    ra.remove(first);
    ra.append(configMap('a', { k: 'v' }), 'kustomization.yaml');
    assert.deepEqual(ra.resources[0]?.obj.data, { k: 'v' });
  });

  it('merges a generated object into the one that had its id before a rename', () => {
    const ra = new ResourceAccumulator();
    ra.append(configMap('settings', { a: '1' }), 'kustomization.yaml');
    ra.resources[0]?.setName('prod-settings');
    ra.absorbGenerated(configMap('settings', { b: '2' }), 'merge', 'kustomization.yaml');
    ra.absorbGenerated(configMap('settings', { c: '3' }), 'merge', 'kustomization.yaml');
    const [merged] = ra.resources;
    assert.equal(merged?.name, 'prod-settings');
    assert.deepEqual(merged.obj.data, { a: '1', b: '2', c: '3' });
  });
});
