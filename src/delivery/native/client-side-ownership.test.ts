import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../core/json.ts';
import { upgradedManagedFields } from './client-side-ownership.ts';

const time = '2026-12-06T10:00:00Z';

function entry(manager: string, operation: string, fieldsV1: JsonObject, extra: JsonObject = {}): JsonObject {
  return { manager, operation, apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1, ...extra };
}

const helmData = { 'f:data': { '.': {}, 'f:x': {} } };
const helmLabels = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app.kubernetes.io/managed-by': {} } } };

describe("moving helm's client-side ownership to server-side apply", () => {
  it('turns the only Update entry into the Apply entry, leaving other managers alone', () => {
    const scaler = entry('kube-controller-manager', 'Update', { 'f:spec': { 'f:replicas': {} } });
    const upgraded = upgradedManagedFields([entry('helm', 'Update', helmData), scaler], 'helm');
    assert.deepEqual(upgraded, [entry('helm', 'Apply', helmData), scaler]);
  });

  it('merges the Update entry of the same API version into an existing Apply entry', () => {
    const upgraded = upgradedManagedFields(
      [entry('helm', 'Apply', helmLabels), entry('helm', 'Update', helmData)],
      'helm',
    );
    assert.deepEqual(upgraded, [
      entry('helm', 'Apply', {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app.kubernetes.io/managed-by': {} } },
        'f:data': { '.': {}, 'f:x': {} },
      }),
    ]);
  });

  it('drops Update entries of another API version without merging them, and keeps subresources', () => {
    const old = entry('helm', 'Update', { 'f:spec': { 'f:old': {} } }, { apiVersion: 'v1beta1' });
    const status = entry('helm', 'Update', { 'f:status': {} }, { subresource: 'status' });
    const upgraded = upgradedManagedFields([entry('helm', 'Update', helmData), old, status], 'helm');
    assert.deepEqual(upgraded, [entry('helm', 'Apply', helmData), status]);
  });

  it("never gives the Apply entry kubectl's last-applied annotation", () => {
    const annotated = {
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {}, 'f:a': {} },
      },
    };
    assert.deepEqual(upgradedManagedFields([entry('helm', 'Update', annotated)], 'helm'), [
      entry('helm', 'Apply', { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } } }),
    ]);
    const only = {
      'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    };
    assert.deepEqual(upgradedManagedFields([entry('helm', 'Update', { ...helmData, ...only })], 'helm'), [
      entry('helm', 'Apply', helmData),
    ]);
  });

  it('says there is nothing to do for server-side applied objects and other managers', () => {
    assert.equal(upgradedManagedFields([entry('helm', 'Apply', helmData)], 'helm'), undefined);
    assert.equal(upgradedManagedFields([entry('kubectl', 'Update', helmData)], 'helm'), undefined);
    assert.equal(upgradedManagedFields([], 'helm'), undefined);
  });
});
