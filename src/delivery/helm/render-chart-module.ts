import { cp, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { parseYamlDocuments } from '../../core/yaml.ts';
import type { HelmClient } from './helm-client.ts';

export interface RenderedChart {
  /** The text `helm template` printed, `# Source:` comments included. */
  readonly manifest: string;
  readonly objects: JsonObject[];
}

/** Module folders that are not chart content when addon-operator synthesizes a chart (reference §6.1). */
const NOT_CHART_DIRS = new Set(['crds', 'docs', 'hooks', 'images', 'lib']);
/** addon-operator's synthesized chart version. */
const SYNTHESIZED_VERSION = '0.2.0';

/**
 * An addon-operator chart module rendered with `helm template` and the module's values
 * (`{global, <moduleKey>}`), so its output can be the module's base resources. A module with
 * templates/ but no Chart.yaml gets the chart addon-operator synthesizes: `name: <module>`,
 * `version: 0.2.0`, every file except crds/, docs/, hooks/, images/ and lib/. CRDs are not rendered:
 * applyCrds applies them. Helm hooks are kept; delivered as part of the slice they stay hooks.
 */
export async function renderChartModule(
  chartDir: string,
  releaseName: string,
  namespace: string,
  values: JsonObject,
  helm: Pick<HelmClient, 'template'>,
  tmpRoot: string = os.tmpdir(),
): Promise<RenderedChart> {
  const hasChartYaml = await exists(path.join(chartDir, 'Chart.yaml'));
  const dir = hasChartYaml ? chartDir : await synthesizeChart(chartDir, releaseName, tmpRoot);
  try {
    const manifest = await helm.template(releaseName, namespace, dir, values);
    const objects = parseYamlDocuments(manifest, `helm template ${releaseName}`)
      .map((document) => document.value)
      .filter(isJsonObject);
    return { manifest, objects };
  } finally {
    if (!hasChartYaml) await rm(dir, { recursive: true, force: true });
  }
}

async function synthesizeChart(moduleDir: string, name: string, tmpRoot: string): Promise<string> {
  // helm takes the chart's name from Chart.yaml, so the temp directory's own name does not matter.
  const chartDir = await mkdtemp(path.join(tmpRoot, `kaddon-chart-${name}-`));
  await cp(moduleDir, chartDir, {
    recursive: true,
    filter: (source) => !NOT_CHART_DIRS.has(path.relative(moduleDir, source).split(path.sep)[0] ?? ''),
  });
  await writeFile(
    path.join(chartDir, 'Chart.yaml'),
    `apiVersion: v2\nname: ${name}\nversion: ${SYNTHESIZED_VERSION}\n`,
  );
  return chartDir;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
