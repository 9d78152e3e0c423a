import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { parseYamlDocument, parseYamlDocuments } from '../../core/yaml.ts';
import { ChartRenderError } from './chart-render-error.ts';
import type { HelmClient } from './helm-client.ts';
import { HelmError } from './helm-error.ts';

/** The part of the helm client a chart render needs. */
export type ChartTemplater = Pick<HelmClient, 'template'>;

/** One object helm printed, with the template that printed it. */
export interface ChartObject {
  readonly obj: JsonObject;
  /**
   * The template's path inside the chart (`templates/deployment.yaml`, `charts/db/templates/…`),
   * from helm's `# Source:` comment without the chart name; undefined when helm printed none.
   */
  readonly template: string | undefined;
}

export interface RenderedChart {
  /** The text `helm template` printed, `# Source:` comments included. */
  readonly manifest: string;
  readonly objects: JsonObject[];
  /** The same objects, each with its template. */
  readonly documents: readonly ChartObject[];
}

export interface RenderChartOptions {
  /** Where a synthesized chart is copied; default the OS temp dir. */
  readonly tmpRoot?: string;
  /** The chart directory as messages show it; default chartDir. */
  readonly displayDir?: string;
}

/**
 * Module folders that are not chart content when addon-operator synthesizes a chart (docs/modules.md "Helm
 * chart modules").
 */
const NOT_CHART_DIRS = new Set(['crds', 'docs', 'hooks', 'images', 'lib']);
/** addon-operator's synthesized chart version. */
const SYNTHESIZED_VERSION = '0.2.0';
/** helm template separates documents with `---` lines (helm's releaseutil.SplitManifests). */
const DOCUMENT_SEPARATOR = /^---[ \t]*$/m;
/** helm starts each document with `# Source: <chart>/<template path>`. */
const SOURCE_COMMENT = /^\r?\n?# Source: ([^\r\n]+)/;

/**
 * An addon-operator chart module rendered with `helm template` and the module's values
 * (`{global, <moduleKey>}`), so its output can be the module's base resources. A module with
 * templates/ but no Chart.yaml gets the chart addon-operator synthesizes: `name: <module>`,
 * `version: 0.2.0`, every file except crds/, docs/, hooks/, images/ and lib/. CRDs are not rendered:
 * applyCrds applies them. Helm hooks are kept; delivered as part of the slice they stay hooks.
 * A template helm cannot render is a ChartRenderError naming the file inside the module.
 */
export async function renderChartModule(
  chartDir: string,
  releaseName: string,
  namespace: string,
  values: JsonObject,
  helm: ChartTemplater,
  options: RenderChartOptions = {},
): Promise<RenderedChart> {
  const chartYaml = path.join(chartDir, 'Chart.yaml');
  const hasChartYaml = await exists(chartYaml);
  const tmpRoot = options.tmpRoot ?? os.tmpdir();
  const dir = hasChartYaml ? chartDir : await synthesizeChart(chartDir, releaseName, tmpRoot);
  try {
    const manifest = await helm
      .template(releaseName, namespace, dir, values)
      .catch(async (error: unknown) => {
        if (!(error instanceof HelmError)) throw error;
        const chartName = hasChartYaml ? await readChartName(chartYaml) : releaseName;
        throw new ChartRenderError(releaseName, options.displayDir ?? chartDir, chartName, error);
      });
    const documents = parseManifest(manifest, `helm template ${releaseName}`);
    return { manifest, objects: documents.map((document) => document.obj), documents };
  } finally {
    if (!hasChartYaml) await rm(dir, { recursive: true, force: true });
  }
}

/** Each `---` section of helm's output, parsed, with the template its `# Source:` comment names. */
function parseManifest(manifest: string, file: string): ChartObject[] {
  return manifest.split(DOCUMENT_SEPARATOR).flatMap((section) => {
    const source = SOURCE_COMMENT.exec(section)?.[1]?.trim();
    const template = source === undefined ? undefined : source.slice(source.indexOf('/') + 1);
    return parseYamlDocuments(section, source ?? file)
      .map((document) => document.value)
      .filter(isJsonObject)
      .map((obj) => ({ obj, template }));
  });
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

/** The `name:` of a Chart.yaml, which prefixes the template paths in helm's messages. */
async function readChartName(chartYaml: string): Promise<string | undefined> {
  try {
    const chart = parseYamlDocument(await readFile(chartYaml, 'utf8'), chartYaml);
    return isJsonObject(chart) && typeof chart.name === 'string' ? chart.name : undefined;
  } catch {
    // helm's own message already says what is wrong with an unreadable Chart.yaml.
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
