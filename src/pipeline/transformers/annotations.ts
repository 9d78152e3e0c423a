import type { FieldSpec } from '../../core/kustomization.ts';
import type { Resource } from '../../core/resource.ts';
import { setMapEntries } from './metadata-map.ts';

/**
 * commonAnnotations (kustomize's api/filters and api/internal/builtins): metadata and pod-template
 * annotations, created where missing.
 */
export function transformAnnotations(
  resources: readonly Resource[],
  annotations: Readonly<Record<string, string>>,
  fieldSpecs: readonly FieldSpec[],
): void {
  setMapEntries(resources, annotations, fieldSpecs);
}
