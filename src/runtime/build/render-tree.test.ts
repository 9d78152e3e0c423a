import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sliceTexts } from '../../../test/slice-texts.ts';
import { makeTempTree } from '../../../test/temp-tree.ts';
import type { JsonObject } from '../../core/json.ts';
import { loadJqEngine } from '../../jq/jq-engine.ts';
import { loadModulesTree, type ModulesTree } from '../../loader/modules-tree.ts';
import { ModuleLoadCache, renderTree, type RenderTreeResult } from './render-tree.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const modulesDir = path.join(repo, 'examples/platform/modules');
const enabledModules = ['echo-server', 'redis', 'prometheus', 'nightly-report', 'platform-policy'];

/** Views for the example tree: echo-server's port (and replicas, highAvailability) set, the rest left unresolved. */
function view(module: string, port: number): JsonObject {
  const key = module.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const own: JsonObject = key === 'echoServer' ? { replicas: 1, port, highAvailability: true } : {};
  return { global: { enabledModules }, [key]: own };
}

describe('renderTree with a ModuleLoadCache', () => {
  it('renders what an uncached render does, again and again, and re-reads a module whose view changed', async () => {
    const jq = await loadJqEngine();
    const tree = loadModulesTree([modulesDir]);
    const cache = new ModuleLoadCache();
    const render = (port: number, withCache: boolean): Record<string, string> =>
      sliceTexts(
        renderTree({
          tree,
          values: { enabledModules, viewFor: (module) => view(module, port) },
          sharedComponentRoots: [path.join(repo, 'components')],
          jq,
          ...(withCache ? { cache } : {}),
        }),
      );
    const expected = render(8080, false);
    // Composition mutates what it accumulates; a reused node must come out the same every time.
    for (let run = 0; run < 3; run++) assert.deepEqual(render(8080, true), expected);
    const changed = render(9090, true);
    assert.deepEqual(changed, render(9090, false));
    assert.notEqual(changed['echo-server'], expected['echo-server'], 'the new view is rendered');
    assert.equal(changed.redis, expected.redis);
  });
});

describe('renderTree with isolateFailures (the operator)', () => {
  const scratch = makeTempTree('render-isolate');
  after(() => {
    scratch.remove();
  });

  /** The example tree plus `broken`; `breakPolicy` also breaks the Component module platform-policy. */
  function brokenTree(name: string, breakPolicy: boolean): ModulesTree {
    const dir = path.join(scratch.root, name);
    cpSync(modulesDir, dir, { recursive: true });
    scratch.write(`${name}/050-broken`, {
      'kustomization.yaml': 'resources:\n- missing.yaml\n',
      'values.yaml': 'brokenEnabled: true\n',
    });
    if (breakPolicy)
      writeFileSync(
        path.join(dir, '900-platform-policy/kustomization.yaml'),
        'kind: Component\nresources: [nope.yaml]\n',
      );
    return loadModulesTree([dir]);
  }

  it('leaves a broken Kustomization module out, with its error, and renders the others as without it', async () => {
    const jq = await loadJqEngine();
    const render = (
      tree: ModulesTree,
      modules: readonly string[],
      isolateFailures: boolean,
    ): RenderTreeResult =>
      renderTree({
        tree,
        values: { enabledModules: modules, viewFor: (module) => view(module, 8080) },
        sharedComponentRoots: [path.join(repo, 'components')],
        jq,
        isolateFailures,
      });
    const tree = brokenTree('isolated', false);
    const result = render(tree, [...enabledModules, 'broken'], true);
    assert.deepEqual([...result.failed.keys()], ['broken']);
    assert.match(String(result.failed.get('broken')), /missing\.yaml/);
    assert.deepEqual(sliceTexts(result), sliceTexts(render(tree, enabledModules, false)));
    assert.throws(() => render(tree, [...enabledModules, 'broken'], false), /missing\.yaml/);
  });

  it('still fails the whole render when a Component module is broken: it changes the other slices', async () => {
    const jq = await loadJqEngine();
    const tree = brokenTree('component', true);
    assert.throws(
      () =>
        renderTree({
          tree,
          values: { enabledModules, viewFor: (module) => view(module, 8080) },
          sharedComponentRoots: [path.join(repo, 'components')],
          jq,
          isolateFailures: true,
        }),
      /nope\.yaml/,
    );
  });
});
