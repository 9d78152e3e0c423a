import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplyApi } from '../drift/release-objects.ts';
import { HelmClient } from '../helm/helm-client.ts';
import { ReleaseEngine } from './release-engine.ts';
import { selectReleaseEngine } from './select-release-engine.ts';

const api: ApplyApi = {
  request: () => Promise.reject(new Error('no request is made while choosing the engine')),
  resolveResource: () => Promise.reject(new Error('no resource is resolved while choosing the engine')),
};
const helm = new HelmClient({ helmPath: '/nonexistent/helm' });

function select(engine: 'helm' | 'native', helmDriver: string | undefined, chosen: boolean) {
  const told: string[] = [];
  const selected = selectReleaseEngine(engine, {
    api,
    helm,
    helmDriver,
    historyMax: 10,
    chosen,
    onBinaryStorage: (driver) => told.push(driver),
  });
  return { selected, told };
}

describe('choosing who writes releases (KADDON_DELIVERY)', () => {
  it('writes helm secret storage natively by default, and with KADDON_DELIVERY=native', () => {
    for (const driver of [undefined, '', 'secret', 'secrets']) {
      for (const chosen of [false, true]) {
        const { selected, told } = select('native', driver, chosen);
        assert.ok(selected instanceof ReleaseEngine, `HELM_DRIVER=${String(driver)}`);
        assert.deepEqual(told, []);
      }
    }
  });

  it('gives another HELM_DRIVER to the helm binary when the engine was defaulted, and says so', () => {
    const { selected, told } = select('native', 'configmap', false);
    assert.equal(selected, helm);
    assert.deepEqual(told, ['configmap']);
  });

  it('refuses another HELM_DRIVER when native was chosen, naming both settings', () => {
    assert.throws(
      () => select('native', 'memory', true),
      /setting 'KADDON_DELIVERY': native delivery writes helm's secret storage, but HELM_DRIVER is 'memory'/,
    );
  });

  it('keeps the binary for every driver with KADDON_DELIVERY=helm, silently', () => {
    assert.equal(select('helm', 'configmap', true).selected, helm);
    assert.deepEqual(select('helm', 'configmap', true).told, []);
    assert.ok(select('helm', undefined, true).selected instanceof ReleaseEngine, 'reads stay native');
  });
});
