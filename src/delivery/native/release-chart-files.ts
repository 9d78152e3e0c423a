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
  const meta = parseYamlDocument(await readFile(path.join(chartDir, 'Chart.yaml'), 'utf8'), 'Chart.yaml');
  const metadata = (meta ?? {}) as JsonObject;
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const modtime = now.toISOString();
  const templates = await chartFiles(chartDir, 'templates', modtime);
  const files = await chartFiles(chartDir, 'files', modtime);
  const [template] = templates;
  const fileName = templates.length === 1 && template ? FILES_GET.exec(template.text)?.[1] : undefined;
  const file = files.find((entry) => entry.name === fileName);
  if (!template || !file)
    throw new NativeChartError(chartDir, 'not a release chart (one .Files.Get template)');
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
    files: files.map(chartFileEntry),
    modtime,
  };
  return { name, chart, output: file.text, source: `${name}/${template.name}` };
}

async function chartFiles(
  chartDir: string,
  folder: string,
  modtime: string,
): Promise<{ name: string; data: string; modtime: string; text: string }[]> {
  const entries = await readdir(path.join(chartDir, folder), { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(path.join(chartDir, folder, name));
      return {
        name: `${folder}/${name}`,
        data: bytes.toString('base64'),
        modtime,
        text: bytes.toString('utf8'),
      };
    }),
  );
}

/** A chart file as helm's chart JSON holds it. */
function chartFileEntry(file: { name: string; data: string; modtime: string }): JsonObject {
  return { name: file.name, data: file.data, modtime: file.modtime };
}
