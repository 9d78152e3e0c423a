import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isValidModuleName,
  moduleNameFromValuesKey,
  moduleValuesKey,
  parseModuleDirName,
} from './module-name.ts';

describe('module names', () => {
  it('converts names to values keys and back as addon-operator does', () => {
    for (const [name, key] of [
      ['l2-load-balancer', 'l2LoadBalancer'],
      ['module-one01', 'moduleOne01'],
      ['2-module-name', '2ModuleName'],
      ['nginx-ingress', 'nginxIngress'],
      ['simple-module', 'simpleModule'],
    ] as const) {
      assert.equal(moduleValuesKey(name), key);
      assert.equal(moduleNameFromValuesKey(key), name);
      assert.equal(isValidModuleName(name), true, name);
    }
  });

  it('refuses names that are not restorable from camelCase', () => {
    for (const name of ['module_one', 'ModuleOne', 'a--b', 'trailing-', '-leading', 'UPPER']) {
      assert.equal(isValidModuleName(name), false, name);
    }
  });

  it('reads the order prefix of a module directory', () => {
    assert.deepEqual(parseModuleDirName('001-simple-module'), { name: 'simple-module', order: 1 });
    assert.deepEqual(parseModuleDirName('echo'), { name: 'echo', order: undefined });
    assert.deepEqual(parseModuleDirName('010-2-module-name'), { name: '2-module-name', order: 10 });
  });
});
