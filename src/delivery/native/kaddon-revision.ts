import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { CHECKSUM_VALUES_KEY, releaseChecksum } from '../helm/deliver-module.ts';
import { RELEASE_TEMPLATE, RELEASE_MANIFEST_FILE } from '../helm/release-chart.ts';
import type { ReleaseRecord } from './release-record.ts';

/**
 * Why a revision is not one kaddon wrote for its module (docs/delivery.md "Revisions kaddon did
 * not write"), or undefined when it is. The checksum in its values proves nothing alone: `helm
 * upgrade --reuse-values` carries it into a revision of another chart. A revision is kaddon's when
 * its chart is the module's release chart (named after the release, one template printing one file)
 * and its values' checksum is that file's, so the slice it holds is the one the checksum names.
 */
export function foreignRevisionReason(record: ReleaseRecord): string | undefined {
  const chart = record.chart;
  const metadata = isJsonObject(chart.metadata) ? chart.metadata : {};
  if (metadata.name !== record.name)
    return `its chart is '${typeof metadata.name === 'string' ? metadata.name : '?'}', not the module's release chart`;
  const templates = chartEntries(chart.templates);
  const [template] = templates;
  if (
    templates.length !== 1 ||
    template?.name !== 'templates/manifest.yaml' ||
    template.text !== RELEASE_TEMPLATE
  )
    return 'its chart has templates of its own';
  const slice = chartEntries(chart.files).find((file) => file.name === RELEASE_MANIFEST_FILE);
  if (slice === undefined) return 'its chart holds no slice';
  if (record.config[CHECKSUM_VALUES_KEY] !== releaseChecksum(slice.text))
    return "its values' checksum is not that of the slice it holds";
  return undefined;
}

function chartEntries(value: unknown): { readonly name: string; readonly text: string }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isJsonObject).map((entry: JsonObject) => ({
    name: typeof entry.name === 'string' ? entry.name : '',
    text: typeof entry.data === 'string' ? Buffer.from(entry.data, 'base64').toString('utf8') : '',
  }));
}
