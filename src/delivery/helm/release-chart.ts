import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Part of every release checksum, so a change of this layout upgrades every release once. */
export const RELEASE_CHART_FORMAT = 'kaddon-release-chart/1';

/** Where the slice lies in the chart; helm reads it as a file, never as a template. */
export const RELEASE_MANIFEST_FILE = 'files/manifest.yaml';

/** The chart's only template, `templates/manifest.yaml`: the slice file printed as it is. */
export const RELEASE_TEMPLATE = `{{ .Files.Get "${RELEASE_MANIFEST_FILE}" }}`;

/**
 * Writes a chart whose only template prints the module's rendered slice unchanged: the slice is
 * a chart file, read with `.Files.Get`, so Go template text in resources (`{{ .Values.x }}` in a
 * ConfigMap, `{{` in a script) reaches the cluster as written. What helm still does to it: it
 * splits the text into documents, sorts them into its install order by kind and prints each after
 * `---\n# Source: <module>/templates/manifest.yaml\n` (checked with helm 4.1.4; see
 * test/kubernetes/helm-delivery.test.ts). Chart name = module name; version 0.0.1 as addon-operator
 * uses.
 */
export async function writeReleaseChart(
  dir: string,
  moduleName: string,
  manifestYaml: string,
): Promise<void> {
  for (const [file, text] of Object.entries(releaseChartTexts(moduleName, manifestYaml))) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
}

/** The release chart's files by their path in the chart: what writeReleaseChart writes. */
export type ReleaseChartTexts = Readonly<Record<string, string>>;

export function releaseChartTexts(moduleName: string, manifestYaml: string): ReleaseChartTexts {
  return {
    'Chart.yaml': `apiVersion: v2\nname: ${moduleName}\nversion: 0.0.1\ndescription: kaddon release of module ${moduleName}\n`,
    'templates/manifest.yaml': RELEASE_TEMPLATE,
    [RELEASE_MANIFEST_FILE]: manifestYaml,
  };
}

/**
 * A release chart held in memory: the native engine reads it from there (no files written and
 * read back for each release, docs/performance.md), and the helm binary gets it written to a
 * temporary directory, removed after `use`.
 */
export interface InMemoryReleaseChart {
  readonly texts: ReleaseChartTexts;
  withDir<T>(use: (dir: string) => Promise<T>): Promise<T>;
}
