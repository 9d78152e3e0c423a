import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { JsonObject } from '../src/core/json.ts';
import { loadJqEngine } from '../src/jq/jq-engine.ts';
import { loadModulesTree } from '../src/loader/modules-tree.ts';
import { loadTreeSchemas } from '../src/loader/values-schemas.ts';
import { componentRoots } from '../src/runtime/build/component-roots.ts';
import { staticValues } from '../src/runtime/build/prepare-values.ts';
import { releaseChecksumOf } from '../src/runtime/operator/deliver-tree.ts';
import { ModuleLoadCache, renderTree, type RenderTreeResult } from '../src/runtime/build/render-tree.ts';
import { MemoryConfigStore } from '../src/runtime/memory-config-store.ts';
import { ValuesStore } from '../src/runtime/values-store.ts';
import { generateModulesTree, removeModulesTree } from './generate-modules.ts';

/**
 * `npm run bench:rerender -- [--modules 1000] [--runs 5]`: what a ConfigMap edit of one module costs
 * the operator before its delivery (docs/performance.md "Native delivery engine"): the whole tree
 * rendered again, as the operator renders it (its ModuleLoadCache, failures isolated), with one
 * module's values view changed, then every slice's release text and checksum (deliver-tree.ts).
 * The peer, in the same process: the same render without the cache, as `kaddon build` does it.
 */
const { values } = parseArgs({
  options: { modules: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const tree = generateModulesTree(Number(values.modules));
try {
  const modules = loadModulesTree([tree.modulesDir]);
  const store = await ValuesStore.open({
    statics: modules.statics,
    modules: modules.modules.map((module) => module.name),
    schemas: loadTreeSchemas(modules, undefined),
    configStore: new MemoryConfigStore(),
  });
  const source = staticValues(modules, store);
  const jq = await loadJqEngine();
  const roots = componentRoots(undefined, [tree.modulesDir]);
  const edited = source.enabledModules[0] ?? '';
  const render = (edit: number, cache: ModuleLoadCache | undefined): RenderTreeResult =>
    renderTree({
      tree: modules,
      values: {
        enabledModules: source.enabledModules,
        viewFor: (name) => {
          const view: JsonObject = source.viewFor(name);
          return name === edited ? { ...view, edit } : view;
        },
        viewKeyFor: (name) => {
          const key = source.viewKeyFor?.(name) ?? '';
          return name === edited ? `${key}\u0000${String(edit)}` : key;
        },
      },
      sharedComponentRoots: roots,
      jq,
      isolateFailures: true,
      ...(cache ? { cache } : {}),
    });
  // As deliver-tree.ts compares them: a slice handed on unchanged keeps its text and checksum.
  const checksums = (result: RenderTreeResult): void => {
    for (const resources of result.rendered.slices.values()) releaseChecksumOf(resources);
  };
  const timed = (run: () => void): number => {
    const startedAt = performance.now();
    run();
    return performance.now() - startedAt;
  };
  const cache = new ModuleLoadCache();
  render(0, cache);
  const rows: { cached: number; uncached: number; checksum: number }[] = [];
  const paths = new Set<string>();
  for (let run = 1; run <= Number(values.runs); run++) {
    let result: RenderTreeResult | undefined;
    const cached = timed(() => (result = render(run, cache)));
    paths.add(cache.composition.lastPath);
    const checksum = timed(() => {
      if (result) checksums(result);
    });
    const uncached = timed(() => render(run, undefined));
    rows.push({ cached, uncached, checksum });
  }
  const median = (pick: (row: (typeof rows)[number]) => number): number =>
    [...rows.map(pick)].sort((a, b) => a - b)[Math.floor(rows.length / 2)] ?? 0;
  console.log(
    `modules: ${values.modules} (${String(source.enabledModules.length)} enabled), runs: ${values.runs}`,
  );
  console.log(`composed by the operator from: ${[...paths].join(', ')}`);
  console.log('| what | median ms |');
  console.log('| --- | ---: |');
  console.log(
    `| render after one module's values changed, as the operator renders | ${median((row) => row.cached).toFixed(0)} |`,
  );
  console.log(`| every slice's release text and checksum | ${median((row) => row.checksum).toFixed(0)} |`);
  console.log(
    `| peer: the same render without the operator's cache (kaddon build's) | ${median((row) => row.uncached).toFixed(0)} |`,
  );
  console.log(
    `ratio operator / peer: ${(median((row) => row.cached) / median((row) => row.uncached)).toFixed(2)}`,
  );
} finally {
  removeModulesTree(tree);
}
