import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { KaddonError } from '../../core/errors.ts';
import { scalarText, type JsonObject } from '../../core/json.ts';
import { parseYamlDocument } from '../../core/yaml/yaml.ts';

/** A chart the native engine cannot deliver: only kaddon's release chart is expected here. */
class NativeChartError extends KaddonError {
  readonly code = 'native-chart-unsupported';
  constructor(chartDir: string, problem: string) {
    super(
      `chart '${chartDir}': ${problem}.`,
      'This is a kaddon bug: the native engine delivers only the release chart kaddon writes (docs/delivery.md); report it, or set KADDON_DELIVERY=helm.',
    );
  }
}

/** The release chart as helm records it in a release, and the template output it yields. */
export interface ReleaseChartFiles {
  readonly name: string;
  /** helm's chart JSON: metadata, templates, files (each base64 with a modtime). */
  readonly chart: JsonObject;
  /** What the chart's only template prints: the slice, verbatim (`.Files.Get`). */
  readonly output: string;
  /** The template's name as helm prints it after `# Source:`. */
  readonly source: string;
}

/** The template that prints one chart file unchanged (src/delivery/helm/release-chart.ts). */
const FILES_GET = /^\{\{ \.Files\.Get "([^"]+)" \}\}$/;

/**
 * Reads a release chart (docs/lifecycle.md "Helm delivery") as helm loads it: Chart.yaml's fields,
 * templates/ and files/ with their contents, in helm's chart JSON; its one template must be the
 * `.Files.Get` of one file, which is what the native engine evaluates.
 */
export async function readReleaseChart(chartDir: string, now: Date): Promise<ReleaseChartFiles> {
  const texts: Record<string, Buffer> = {
    'Chart.yaml': await readFile(path.join(chartDir, 'Chart.yaml')),
  };
  for (const folder of ['templates', 'files']) {
    const entries = await readdir(path.join(chartDir, folder), { withFileTypes: true });
    for (const entry of entries)
      if (entry.isFile())
        texts[`${folder}/${entry.name}`] = await readFile(path.join(chartDir, folder, entry.name));
  }
  return releaseChartOf(chartDir, texts, now);
}

/**
 * The same from the chart's files in memory (InMemoryReleaseChart in src/delivery/helm/release-chart.ts),
 * by their path in the chart; `label` names the chart in errors.
 */
export function releaseChartOf(
  label: string,
  files: Readonly<Record<string, string | Buffer>>,
  now: Date,
): ReleaseChartFiles {
  const bytes = (file: string): Buffer => {
    const content = files[file] ?? '';
    return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  };
  const meta = parseYamlDocument(bytes('Chart.yaml').toString('utf8'), 'Chart.yaml');
  const metadata = (meta ?? {}) as JsonObject;
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const modtime = now.toISOString();
  const inFolder = (folder: string): ChartFile[] =>
    Object.keys(files)
      .filter((file) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes('/'))
      .sort()
      .map((file) => {
        const content = bytes(file);
        return { name: file, data: content.toString('base64'), modtime, text: content.toString('utf8') };
      });
  const templates = inFolder('templates');
  const chartFiles = inFolder('files');
  const [template] = templates;
  const fileName = templates.length === 1 && template ? FILES_GET.exec(template.text)?.[1] : undefined;
  const file = chartFiles.find((entry) => entry.name === fileName);
  if (!template || !file) throw new NativeChartError(label, 'not a release chart (one .Files.Get template)');
  const chart: JsonObject = {
    metadata: {
      name,
      version: scalarText(metadata.version),
      description: scalarText(metadata.description ?? ''),
      apiVersion: scalarText(metadata.apiVersion),
    },
    lock: null,
    templates: templates.map(chartFileEntry),
    values: null,
    schema: null,
    schemamodtime: '0001-01-01T00:00:00Z',
    files: chartFiles.map(chartFileEntry),
    modtime,
  };
  return { name, chart, output: file.text, source: `${name}/${template.name}` };
}

interface ChartFile {
  readonly name: string;
  readonly data: string;
  readonly modtime: string;
  readonly text: string;
}

/** A chart file as helm's chart JSON holds it. */
function chartFileEntry(file: ChartFile): JsonObject {
  return { name: file.name, data: file.data, modtime: file.modtime };
}
