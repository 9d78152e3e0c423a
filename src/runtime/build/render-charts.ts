import { asError } from '../../core/errors.ts';
import os from 'node:os';
import type { JsonObject } from '../../core/json.ts';
import {
  renderChartModule,
  type ChartObject,
  type ChartTemplater,
} from '../../delivery/helm/render-chart-module.ts';
import type { ModuleDefinition, ModulesTree } from '../../loader/modules-tree.ts';
import { displayPath } from '../../core/display-path.ts';
import { renderTree, type RenderTreeInput, type RenderTreeResult } from './render-tree.ts';

/** What rendering the chart modules needs beside the tree. */
export interface ChartRenderDeps {
  /** `helm template`; only called when an enabled module is a chart. */
  readonly helm: ChartTemplater;
  /** The release namespace (ADDON_OPERATOR_NAMESPACE): `.Release.Namespace` in templates. */
  readonly namespace: string;
  /**
   * The values a module's chart is rendered with: `{global, <moduleKey>}` without
   * enabledModules, checked against the helm schema (ValuesStore.helmValues, docs/values.md).
   */
  readonly helmValues: (module: string) => JsonObject;
  /** Where synthesized charts and values files are written; default the OS temp dir. */
  readonly tmpRoot?: string;
  /** Paths in messages are shown relative to this folder. */
  readonly displayBase?: string;
  /** Charts rendered earlier, reused while the module's helm values stay the same (the operator's). */
  readonly cache?: ChartCache;
  /** Given: a chart that fails to render is reported here and left out instead of throwing. */
  readonly onFailure?: (module: string, error: unknown) => void;
}

/** The last render of each chart module with the helm values (as JSON) it was rendered with. */
export type ChartCache = Map<string, { readonly values: string; readonly objects: readonly ChartObject[] }>;

/** The rendered objects of each enabled chart module, by module name: RenderTreeInput.charts. */
export type RenderedCharts = ReadonlyMap<string, readonly ChartObject[]>;

/** The enabled modules whose manifests are a Helm chart, in module order. */
export function enabledChartModules(
  tree: ModulesTree,
  enabledModules: readonly string[],
): ModuleDefinition[] {
  return tree.modules.filter((module) => module.source === 'chart' && enabledModules.includes(module.name));
}

/**
 * Renders each enabled chart module with `helm template` as addon-operator would install it (docs/modules.md
 * "Helm chart modules"–6.2): release name = module name, the module's helm values, the chart as is or
 * synthesized from templates/. One at a time, in module order, so the first error is the first module's.
 */
export async function renderCharts(
  tree: ModulesTree,
  enabledModules: readonly string[],
  deps: ChartRenderDeps,
): Promise<RenderedCharts> {
  const charts = new Map<string, readonly ChartObject[]>();
  for (const module of enabledChartModules(tree, enabledModules)) {
    try {
      charts.set(module.name, await renderChart(module, deps));
    } catch (error: unknown) {
      if (deps.onFailure === undefined) throw error;
      deps.onFailure(module.name, error);
    }
  }
  return charts;
}

/** One chart module's objects: from the cache while its helm values are the same. */
async function renderChart(module: ModuleDefinition, deps: ChartRenderDeps): Promise<readonly ChartObject[]> {
  const values = deps.helmValues(module.name);
  const key = JSON.stringify(values);
  const cached = deps.cache?.get(module.name);
  if (cached?.values === key) return cached.objects;
  const rendered = await renderChartModule(module.dir, module.name, deps.namespace, values, deps.helm, {
    tmpRoot: deps.tmpRoot ?? os.tmpdir(),
    displayDir: displayPath(module.dir, deps.displayBase ?? process.cwd()),
  });
  deps.cache?.set(module.name, { values: key, objects: rendered.documents });
  return rendered.documents;
}

/**
 * renderTree for callers that may have chart modules (the operator, per render): the enabled
 * chart modules are rendered with helm first and become their modules' base resources. With
 * `isolateFailures`, a chart that fails to render is one failed module, as in renderTree.
 */
export async function renderTreeWithCharts(
  input: Omit<RenderTreeInput, 'charts' | 'failedCharts'>,
  deps: ChartRenderDeps,
): Promise<RenderTreeResult> {
  const displayBase = deps.displayBase ?? input.displayBase;
  const failedCharts = new Map<string, Error>();
  const charts = await renderCharts(input.tree, input.values.enabledModules, {
    ...deps,
    ...(displayBase === undefined ? {} : { displayBase }),
    ...(input.isolateFailures === true
      ? {
          onFailure: (module: string, error: unknown) => {
            failedCharts.set(module, asError(error));
          },
        }
      : {}),
  });
  return renderTree({ ...input, charts, failedCharts });
}
