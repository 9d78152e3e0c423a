import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sliceTexts } from '../../../test/slice-texts.ts';
import { makeTempTree } from '../../../test/temp-tree.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ChartObject } from '../../delivery/helm/render-chart-module.ts';
import { loadJqEngine, type JqEngine } from '../../jq/jq-engine.ts';
import { loadModulesTree, type ModulesTree } from '../../loader/modules-tree.ts';
import { ModuleLoadCache, renderTree, type RenderTreeResult } from './render-tree.ts';

/**
 * Chart modules in the operator's render (docs/architecture.md "Incremental composition"): a chart
 * whose render is the same array as last time is not built or composed again. Generated sequences
 * of renders, each chart's objects kept or made anew at random, must give what a whole render
 * gives, with a Kustomization module and a Component over every module beside the charts.
 */

const CHARTS = ['alpha', 'beta', 'gamma', 'delta'];
const ENABLED = [...CHARTS, 'plain', 'policy'];

/** A small deterministic generator, so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function chartObjects(chart: string, next: () => number): ChartObject[] {
  const count = 1 + Math.floor(next() * 3);
  return Array.from({ length: count }, (_, index): ChartObject => {
    const obj: JsonObject =
      index === 0
        ? {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: chart },
            spec: {
              replicas: Math.floor(next() * 5),
              selector: { matchLabels: { app: chart } },
              template: {
                metadata: { labels: { app: chart } },
                spec: {
                  containers: [{ name: 'app', image: `example/${chart}:${String(Math.floor(next() * 9))}` }],
                },
              },
            },
          }
        : {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `${chart}-${String(index)}` },
            data: { value: String(Math.floor(next() * 1000)) },
          };
    return { template: `templates/object-${String(index)}.yaml`, obj };
  });
}

describe('chart modules in the operator render', () => {
  const scratch = makeTempTree('incremental-chart-render');
  let jq: JqEngine;
  let tree: ModulesTree;
  before(async () => {
    jq = await loadJqEngine();
    for (const [index, chart] of CHARTS.entries())
      scratch.write(`modules/0${String(index + 1)}0-${chart}`, {
        'Chart.yaml': `apiVersion: v2\nname: ${chart}\nversion: 0.1.0\n`,
        'templates/.keep': '',
      });
    scratch.write('modules/500-plain', {
      'kustomization.yaml': 'resources: [config.yaml]\n',
      'config.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  level: $(plain.level)\n',
    });
    scratch.write('modules/900-policy', {
      'kustomization.yaml': [
        'apiVersion: kustomize.config.k8s.io/v1alpha1',
        'kind: Component',
        'labels:',
        '- pairs: {policy: strict}',
        'patches:',
        '- target: {kind: Deployment}',
        '  patch: |',
        '    - op: add',
        '      path: /spec/revisionHistoryLimit',
        '      value: 3',
        '',
      ].join('\n'),
    });
    tree = loadModulesTree([path.join(scratch.root, 'modules')]);
  });
  after(() => {
    scratch.remove();
  });

  const render = (
    charts: ReadonlyMap<string, readonly ChartObject[]>,
    level: string,
    cache?: ModuleLoadCache,
  ): RenderTreeResult =>
    renderTree({
      tree,
      values: {
        enabledModules: ENABLED,
        viewFor: (module): JsonObject => ({
          global: {},
          [module]: module === 'plain' ? { level } : {},
        }),
      },
      charts,
      sharedComponentRoots: [],
      jq,
      isolateFailures: true,
      ...(cache ? { cache } : {}),
    });

  it('gives what a whole render gives, composing only the charts whose render changed', () => {
    const paths = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const cache = new ModuleLoadCache();
      const charts = new Map(CHARTS.map((chart) => [chart, chartObjects(chart, next)]));
      let level = 'info';
      for (let step = 0; step < 6; step++) {
        // Each chart rendered anew (a new array, maybe the same objects) or kept, the plain module's
        // value changed or not: what a ConfigMap edit does to the operator's caches.
        for (const chart of CHARTS) {
          const roll = next();
          if (roll < 0.3) charts.set(chart, chartObjects(chart, next));
          else if (roll < 0.4) charts.set(chart, [...(charts.get(chart) ?? [])]);
        }
        if (next() < 0.3) level = `level-${String(step)}`;
        const cached = render(charts, level, cache);
        const whole = render(charts, level);
        assert.deepEqual(sliceTexts(cached), sliceTexts(whole), `seed ${String(seed)}, step ${String(step)}`);
        paths.add(cache.composition.lastPath);
      }
    }
    // The sequences went every way the composition can go.
    assert.deepEqual([...paths].sort(), ['changed modules', 'unchanged', 'whole']);
  });

  it('reuses the node of a chart whose render is the same array, and only then', () => {
    const cache = new ModuleLoadCache();
    const next = random(7);
    const charts = new Map(CHARTS.map((chart) => [chart, chartObjects(chart, next)]));
    render(charts, 'info', cache);
    render(charts, 'info', cache);
    assert.equal(cache.composition.lastPath, 'unchanged');
    charts.set('beta', chartObjects('beta', next));
    const edited = render(charts, 'info', cache);
    assert.equal(cache.composition.lastPath, 'changed modules');
    assert.deepEqual(sliceTexts(edited), sliceTexts(render(charts, 'info')));
  });
});
