import { cp, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { parseYamlDocument, parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { decodeUtf8, readRegularFile } from '../../loader/input-file.ts';
import { ChartRenderError } from './chart-render-error.ts';
import type { HelmClient } from './helm-client.ts';
import { HelmError } from './helm-error.ts';
import { makeTempDir, type TempDir } from '../../processes/temp-dir.ts';

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
/** A Chart.yaml is a few lines: a larger one is not read for its name. */
const MAX_CHART_YAML_BYTES = 1024 * 1024;
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
  await refuseSpecialFiles(chartDir, options.displayDir ?? chartDir);
  const tmpRoot = options.tmpRoot ?? os.tmpdir();
  const synthesized = hasChartYaml ? undefined : await synthesizeChart(chartDir, releaseName, tmpRoot);
  const dir = synthesized?.path ?? chartDir;
  try {
    const manifest = await helm.template(releaseName, namespace, dir, values).catch((error: unknown) => {
      // Ended because kaddon stops: helm's own words say nothing about the chart.
      if (!(error instanceof HelmError) || error.ended === 'stop') throw error;
      const chartName = hasChartYaml ? readChartName(chartYaml) : releaseName;
      throw new ChartRenderError(releaseName, options.displayDir ?? chartDir, chartName, error);
    });
    const documents = parseManifest(manifest, `helm template ${releaseName}`);
    return { manifest, objects: documents.map((document) => document.obj), documents };
  } finally {
    await synthesized?.remove();
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

async function synthesizeChart(moduleDir: string, name: string, tmpRoot: string): Promise<TempDir> {
  // helm takes the chart's name from Chart.yaml, so the temp directory's own name does not matter.
  const chartDir = await makeTempDir(path.join(tmpRoot, `kaddon-chart-${name}-`));
  try {
    await cp(moduleDir, chartDir.path, {
      recursive: true,
      filter: (source) => !NOT_CHART_DIRS.has(path.relative(moduleDir, source).split(path.sep)[0] ?? ''),
    });
    await writeFile(
      path.join(chartDir.path, 'Chart.yaml'),
      `apiVersion: v2\nname: ${name}\nversion: ${SYNTHESIZED_VERSION}\n`,
    );
  } catch (error: unknown) {
    await chartDir.remove();
    throw error;
  }
  return chartDir;
}

/**
 * helm reads every file of a chart: a named pipe among them would stall it until its time limit, a
 * device feed it without end. Both are refused first, naming the file (docs/modules.md "Limits on input").
 */
async function refuseSpecialFiles(chartDir: string, displayDir: string): Promise<void> {
  const entries = await readdir(chartDir, { withFileTypes: true, recursive: true });
  const special = entries.find(
    (entry) => entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice(),
  );
  if (special === undefined) return;
  const file = path.join(displayDir, path.relative(chartDir, path.join(special.parentPath, special.name)));
  // readRegularFile words what the file is.
  readRegularFile(path.join(special.parentPath, special.name), file, 0);
}

/** The `name:` of a Chart.yaml, which prefixes the template paths in helm's messages. */
function readChartName(chartYaml: string): string | undefined {
  try {
    const bytes = readRegularFile(chartYaml, chartYaml, MAX_CHART_YAML_BYTES);
    if (bytes === undefined) return undefined;
    const chart = parseYamlDocument(decodeUtf8(bytes, chartYaml), chartYaml);
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
