import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeTempTree } from '../../test/temp-tree.ts';
import { loadModulesTree } from './modules-tree.ts';

const tree = makeTempTree('modules-tree');
after(() => {
  tree.remove();
});

describe('loadModulesTree module order', () => {
  const kustomization = { 'kustomization.yaml': 'resources: []\n' };
  tree.write('modules/010-first', kustomization);
  tree.write('modules/plain', kustomization);
  tree.write('modules/500-middle', kustomization);
  const dir = `${tree.root}/modules`;

  it('puts modules without a number at order 1 by default, as addon-operator does', () => {
    assert.deepEqual(
      loadModulesTree([dir]).modules.map(({ name, order }) => [name, order]),
      [
        ['plain', 1],
        ['first', 10],
        ['middle', 500],
      ],
    );
  });

  it('puts them at UNNUMBERED_MODULE_ORDER when it is set', () => {
    assert.deepEqual(
      loadModulesTree([dir], { unnumberedOrder: 900 }).modules.map(({ name }) => name),
      ['first', 'middle', 'plain'],
    );
  });
});
