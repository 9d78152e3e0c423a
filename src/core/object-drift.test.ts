import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from './json.ts';
import { pruneToFields, unionFields } from './managed-fields.ts';
import { compareApplied, removePointer } from './object-drift.ts';

/** A Deployment as the server holds it: helm owns replicas and the container's image. */
function deployment(replicas: number, image: string, helmFields: JsonObject): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'demo',
      resourceVersion: '7',
      labels: { app: 'web', 'pod-template-hash': 'abc' },
      managedFields: [
        { manager: 'helm', operation: 'Apply', fieldsV1: helmFields },
        { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:status': {} } },
      ],
    },
    spec: {
      replicas,
      template: {
        spec: {
          containers: [{ name: 'web', image, imagePullPolicy: 'IfNotPresent' }],
        },
      },
    },
    status: { readyReplicas: replicas },
  };
}

const HELM_FIELDS: JsonObject = {
  'f:metadata': { 'f:labels': { 'f:app': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:template': {
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:image': {} } } },
    },
  },
};

describe('compareApplied', () => {
  it('sees no drift when the apply would leave the object as it is, whatever others filled in', () => {
    const live = deployment(3, 'web:1', HELM_FIELDS);
    const result = compareApplied(live, deployment(3, 'web:1', HELM_FIELDS));
    assert.equal(result.changed, false);
    assert.deepEqual(result.after, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'demo', labels: { app: 'web' } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
    });
  });

  it('finds a field the release sets and someone changed, even after they took it over', () => {
    const withoutImage: JsonObject = JSON.parse(JSON.stringify(HELM_FIELDS)) as JsonObject;
    const live = deployment(3, 'web:evil', withoutImage);
    const result = compareApplied(live, deployment(3, 'web:1', HELM_FIELDS));
    assert.equal(result.changed, true);
    assert.deepEqual((result.before?.spec as JsonObject).template, {
      spec: { containers: [{ name: 'web', image: 'web:evil' }] },
    });
  });

  it('never counts a field only another manager sets (an autoscaler’s replicas)', () => {
    const fields: JsonObject = {
      'f:spec': { 'f:template': (HELM_FIELDS['f:spec'] as JsonObject)['f:template'] ?? {} },
    };
    const result = compareApplied(deployment(7, 'web:1', fields), deployment(7, 'web:1', fields));
    assert.equal(result.changed, false);
    assert.equal((result.after.spec as JsonObject).replicas, undefined);
  });

  it('leaves ignored paths out on both sides, and the whole object for the empty pointer', () => {
    const live = deployment(5, 'web:1', HELM_FIELDS);
    const applied = deployment(3, 'web:1', HELM_FIELDS);
    assert.equal(compareApplied(live, applied).changed, true);
    assert.equal(compareApplied(live, applied, { ignorePaths: ['/spec/replicas'] }).changed, false);
    assert.equal(
      compareApplied(live, deployment(3, 'web:2', HELM_FIELDS), { ignorePaths: [''] }).changed,
      false,
    );
  });

  it('masks Secret values: equal ones alike, changed ones as before and after', () => {
    const secret = (password: string): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        managedFields: [
          { manager: 'helm', operation: 'Apply', fieldsV1: { 'f:data': { 'f:password': {}, 'f:user': {} } } },
        ],
      },
      data: { password, user: 'YWRtaW4=' },
    });
    const result = compareApplied(secret('b2xk'), secret('bmV3'));
    assert.equal(result.changed, true);
    assert.deepEqual(result.before?.data, { password: '*** (before)', user: '***' });
    assert.deepEqual(result.after.data, { password: '*** (after)', user: '***' });
    assert.ok(!JSON.stringify(result).includes('b2xk'));
  });

  it('compares the keys a Secret sets through stringData in data, where the server keeps them', () => {
    // As the API server answers: stringData merged into data, managedFields naming f:stringData.
    const secret = (token: string, fields: JsonObject): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', managedFields: [{ manager: 'helm', operation: 'Apply', fieldsV1: fields }] },
      data: { token, other: 'b3RoZXI=' },
    });
    const viaStringData = { 'f:stringData': { 'f:token': {} } };
    const changed = compareApplied(secret('b2xk', viaStringData), secret('bmV3', viaStringData));
    assert.equal(changed.changed, true);
    assert.deepEqual(changed.before?.data, { token: '*** (before)' });
    assert.deepEqual(changed.after.data, { token: '*** (after)' });
    assert.ok(!JSON.stringify(changed).includes('bmV3'));
    assert.equal(compareApplied(secret('b2xk', viaStringData), secret('b2xk', viaStringData)).changed, false);
    const both = { 'f:data': { 'f:other': {} }, 'f:stringData': { 'f:token': {} } };
    assert.deepEqual(compareApplied(secret('b2xk', both), secret('b2xk', both)).after.data, {
      token: '***',
      other: '***',
    });
  });

  it('reports an object that does not exist as changed with no before', () => {
    const result = compareApplied(undefined, deployment(1, 'web:1', HELM_FIELDS));
    assert.equal(result.changed, true);
    assert.equal(result.before, undefined);
  });
});

describe('managed fields', () => {
  it('keeps list items by key, by value and by index, in the object’s order', () => {
    const value: JsonObject = {
      items: [
        { name: 'a', x: 1, y: 2 },
        { name: 'b', x: 3 },
      ],
      finalizers: ['f1', 'f2'],
      args: ['p', 'q'],
    };
    const fields: JsonObject = {
      'f:items': { 'k:{"name":"b"}': { 'f:x': {} } },
      'f:finalizers': { 'v:"f2"': {} },
      'f:args': { 'i:0': {} },
    };
    assert.deepEqual(pruneToFields(value, fields), { items: [{ x: 3 }], finalizers: ['f2'], args: ['p'] });
  });

  it('merges two owners’ sets', () => {
    assert.deepEqual(unionFields({ 'f:a': { 'f:b': {} } }, { 'f:a': { 'f:c': {} }, 'f:d': {} }), {
      'f:a': { 'f:b': {}, 'f:c': {} },
      'f:d': {},
    });
  });

  it('removes a JSON pointer with escaped tokens and list indexes', () => {
    const object: JsonObject = { metadata: { annotations: { 'a/b': '1', c: '2' } }, list: [1, 2, 3] };
    removePointer(object, '/metadata/annotations/a~1b');
    removePointer(object, '/list/1');
    removePointer(object, '/no/such/path');
    assert.deepEqual(object, { metadata: { annotations: { c: '2' } }, list: [1, 3] });
  });
});
