import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JsonObject } from '../core/json.ts';
import { stringifyYamlStream } from '../core/yaml.ts';
import { loadJqEngine } from '../loader/jq-engine.ts';
import { loadModulesTree } from '../loader/modules-tree.ts';
import { ModuleLoadCache, renderTree, type RenderTreeResult } from './render-tree.ts';

const repo = path.resolve(import.meta.dirname, '../..');
const modulesDir = path.join(repo, 'examples/platform/modules');
const enabledModules = ['echo-server', 'redis', 'prometheus', 'nightly-report', 'platform-policy'];

/** Views for the example tree: echo-server's port (and replicas, highAvailability) set, the rest left unresolved. */
function view(module: string, port: number): JsonObject {
  const key = module.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const own: JsonObject = key === 'echoServer' ? { replicas: 1, port, highAvailability: true } : {};
  return { global: { enabledModules }, [key]: own };
}

function slices(result: RenderTreeResult): Record<string, string> {
  return Object.fromEntries(
    [...result.rendered.slices].map(([module, resources]) => [
      module,
      stringifyYamlStream(resources.map((resource) => resource.obj)),
    ]),
  );
}

describe('renderTree with a ModuleLoadCache', () => {
  it('renders what an uncached render does, again and again, and re-reads a module whose view changed', async () => {
    const jq = await loadJqEngine();
    const tree = loadModulesTree([modulesDir]);
    const cache = new ModuleLoadCache();
    const render = (port: number, withCache: boolean): Record<string, string> =>
      slices(
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
