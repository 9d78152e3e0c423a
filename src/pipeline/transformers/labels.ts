import type { FieldSpec, LabelEntry } from '../../core/kustomization.ts';
import type { Resource } from '../../core/resource.ts';
import type { TransformerConfig } from '../transformer-config.ts';
import { setMapEntries, toStringMap } from './metadata-map.ts';

const METADATA_LABELS: FieldSpec = { path: 'metadata/labels', create: true };

/**
 * `labels` entries in order, then `commonLabels` (kustomize's api/filters and api/internal/builtins "labels /
 * commonLabels"): selectors only with includeSelectors (commonLabels always), templates with
 * includeTemplates.
 */
export function transformLabels(
  resources: readonly Resource[],
  labels: readonly LabelEntry[],
  commonLabels: Readonly<Record<string, string>> | undefined,
  config: TransformerConfig,
): void {
  const entries: LabelEntry[] = [...labels];
  if (commonLabels) entries.push({ pairs: commonLabels, includeSelectors: true });
  for (const entry of entries) {
    setMapEntries(resources, toStringMap(entry.pairs), fieldSpecsFor(entry, config));
  }
}

function fieldSpecsFor(entry: LabelEntry, config: TransformerConfig): FieldSpec[] {
  const extra = [...config.labels, ...(entry.fields ?? [])];
  if (entry.includeSelectors) return [...config.commonLabels, ...extra];
  const specs = [METADATA_LABELS, ...extra];
  if (entry.includeTemplates) specs.push(...config.templateLabels);
  return specs;
}
