import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makeTempTree } from '../../../test/temp-tree.ts';
import { loadModulesTree } from '../../loader/modules-tree.ts';
import { loadTreeSchemas } from '../../loader/values-schemas.ts';
import { createCapturingLogger } from '../../observability/logger.ts';
import { MemoryConfigStore } from '../memory-config-store.ts';
import { ValuesStore } from '../values-store.ts';
import type { ModulesTreeSource } from './modules-tree-source.ts';
import type { OperatorContext } from './operator-context.ts';
import type { PreparedTree } from './prepare-modules-tree.ts';
import { switchModulesTree } from './switch-modules-tree.ts';

const scratch = makeTempTree('switch-tree');
after(() => {
  scratch.remove();
});

function prepared(revision: string, schema: string): PreparedTree {
  const modulesDir = scratch.write(`${revision}/modules`, {
    '010-app/kustomization.yaml': 'resources: []\n',
    '010-app/values.yaml': 'appEnabled: true\n',
    '010-app/openapi/config-values.yaml': schema,
  });
  const tree = loadModulesTree([modulesDir]);
  return {
    revision,
    modulesDir,
    globalHooksDir: undefined,
    sharedComponentRoots: [],
    tree,
    schemas: loadTreeSchemas(tree, undefined),
    hooks: { global: [], modules: new Map() },
    warnings: [],
  };
}

describe('switchModulesTree', () => {
  it('drops a revision the values store refuses with the config values of now, and keeps the tree in use', async () => {
    const inUse = prepared('a', 'type: object\nproperties:\n  replicas: {type: string}\n');
    const store = await ValuesStore.open({
      statics: inUse.tree.statics,
      modules: ['app'],
      schemas: inUse.schemas,
      configStore: new MemoryConfigStore({
        global: undefined,
        modules: new Map([['app', { replicas: 'three' }]]),
        enabled: new Map(),
      }),
    });
    // The config values say a string; the new revision's schema wants an integer.
    const next = prepared('b', 'type: object\nproperties:\n  replicas: {type: integer}\n');
    const refused: string[] = [];
    const source: ModulesTreeSource = {
      follow: () => undefined,
      next: () => (refused.includes(next.revision) ? undefined : next),
      markInUse: () => assert.fail('a refused revision is never in use'),
      refuse: (revision, error) => {
        refused.push(revision);
        assert.match(error.message, /replicas/u);
      },
      status: () => assert.fail('not asked'),
      requestSync: () => undefined,
      stop: () => Promise.resolve(),
    };
    const logger = createCapturingLogger();
    // The refusal path reads nothing else of the context.
    const ctx = { tree: inUse.tree, store, logger, modulesSource: source } as unknown as OperatorContext;
    const result = await switchModulesTree(ctx, 0);
    assert.deepEqual(result, { status: 'success' });
    assert.deepEqual(refused, ['b']);
    assert.equal(ctx.tree, inUse.tree, 'the tree in use stays');
    assert.deepEqual(store.moduleValues('app'), { replicas: 'three' });
    assert.ok(logger.entries.some((entry) => entry.msg.startsWith('revision b refused')));
  });
});
