import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GLOBAL_OWNER, moduleOwner } from './values.ts';
import { valuesView } from './values-view.ts';

describe('valuesView', () => {
  it('gives a global hook the global values only', () => {
    assert.deepEqual(valuesView(GLOBAL_OWNER, { clusterName: 'a' }, { ignored: true }, ['echo-server']), {
      global: { clusterName: 'a' },
    });
  });

  it("puts a module's section under its camelCase key beside global", () => {
    assert.deepEqual(valuesView(moduleOwner('echo-server'), { clusterName: 'a' }, { replicas: 2 }), {
      global: { clusterName: 'a' },
      echoServer: { replicas: 2 },
    });
  });

  it('lists the enabled modules under global when given, leaving the caller’s global as it was', () => {
    const global = { clusterName: 'a' };
    const view = valuesView(moduleOwner('echo-server'), global, {}, ['cert-manager', 'echo-server']);
    assert.deepEqual(view.global, { clusterName: 'a', enabledModules: ['cert-manager', 'echo-server'] });
    assert.deepEqual(global, { clusterName: 'a' });
  });
});
