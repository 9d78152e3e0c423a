import path from 'node:path';
import { ensureMap } from '../core/json.ts';
import type { Resource, ResourceOrigin } from '../core/resource.ts';

const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';
const TRANSFORMATIONS_ANNOTATION = 'alpha.config.kubernetes.io/transformations';
const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** The kustomize release kaddon's engine reproduces, as kustomize names itself in managedByLabel. */
const MANAGED_BY_VALUE = 'kustomize-v5.5.0';

/**
 * kustomize's `buildMetadata` of the kustomization that was built: `originAnnotations` says where each
 * object came from, `transformerAnnotations` which transformers processed it, `managedByLabel` labels
 * it as kustomize's. Paths are written relative to `rootDir`, the built kustomization's directory.
 * `extra` adds fields to every origin (a modules tree names the module).
 */
export function annotateBuildMetadata(
  resources: readonly Resource[],
  buildMetadata: readonly string[],
  rootDir: string,
  extra: Readonly<Record<string, string>> = {},
): void {
  const origins = buildMetadata.includes('originAnnotations');
  const transformations = buildMetadata.includes('transformerAnnotations');
  const managedBy = buildMetadata.includes('managedByLabel');
  for (const resource of resources) {
    const metadata = ensureMap(resource.obj, ['metadata']);
    if (origins && resource.origin) {
      ensureMap(metadata, ['annotations'])[ORIGIN_ANNOTATION] =
        originYaml(resource.origin, rootDir, '') + fieldsYaml(extra, '');
    }
    if (transformations && resource.transformations.length > 0) {
      ensureMap(metadata, ['annotations'])[TRANSFORMATIONS_ANNOTATION] = resource.transformations
        .map((origin) => `- ${originYaml(origin, rootDir, '  ').slice(2)}`)
        .join('');
    }
    if (managedBy) ensureMap(metadata, ['labels'])[MANAGED_BY_LABEL] = MANAGED_BY_VALUE;
  }
}

/** An origin as kustomize prints it: `path: …`, or `configuredIn: …` then `configuredBy:`. */
function originYaml(origin: ResourceOrigin, rootDir: string, indent: string): string {
  if ('path' in origin) return `${indent}path: ${relative(rootDir, origin.path)}\n`;
  const by = origin.configuredBy;
  return (
    `${indent}configuredIn: ${relative(rootDir, origin.configuredIn)}\n` +
    `${indent}configuredBy:\n` +
    `${indent}  apiVersion: ${by.apiVersion}\n` +
    `${indent}  kind: ${by.kind}\n` +
    (by.name === undefined ? '' : `${indent}  name: ${by.name}\n`) +
    (by.namespace === undefined ? '' : `${indent}  namespace: ${by.namespace}\n`)
  );
}

function fieldsYaml(fields: Readonly<Record<string, string>>, indent: string): string {
  return Object.entries(fields)
    .map(([key, value]) => `${indent}${key}: ${value}\n`)
    .join('');
}

function relative(rootDir: string, file: string): string {
  return path.relative(rootDir, file).split(path.sep).join('/');
}
