import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Resource } from './resource.ts';

describe('Resource', () => {
  it('reads its id from the object as transformers left it', () => {
    const resource = new Resource({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 'a.yaml');
    assert.equal(resource.id.name, 'a');
    resource.metadata().name = 'b';
    resource.metadata().namespace = 'shop';
    assert.deepEqual(resource.id, {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      name: 'b',
      namespace: 'shop',
    });
    resource.obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
    assert.deepEqual(resource.id, {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      name: 'web',
      namespace: '',
    });
    resource.obj.metadata = { name: 'api' };
    assert.equal(resource.name, 'api');
  });

  it('keys equal ids alike: no namespace is the default one', () => {
    const plain = new Resource({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, 's.yaml');
    const inDefault = new Resource(
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } },
      's.yaml',
    );
    assert.equal(plain.idKey, inDefault.idKey);
    inDefault.setNamespace('shop');
    assert.notEqual(plain.idKey, inDefault.idKey);
  });
});
