import path from 'node:path';
import { KaddonError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { KustomizationNode, LoadedObject } from '../../core/kustomization.ts';
import type { ChartObject } from '../../delivery/helm/render-chart-module.ts';

/**
 * A chart module as the pipeline composes it (docs/architecture.md "Modules are components"): a
 * Kustomization whose only resources are the objects its chart rendered, so it is built alone and
 * merged in, and Component modules after it patch it like any module's resources. helm already
 * applied the values, so the objects are not `$(var)`-expanded: charts keep working unchanged.
 */
export function chartModuleNode(
  module: string,
  displayDir: string,
  objects: readonly ChartObject[],
): KustomizationNode {
  const file = path.join(displayDir, 'templates');
  const loaded = objects.flatMap(({ obj, template }) => {
    const source = template === undefined ? displayDir : path.join(displayDir, template);
    return expandList(obj).map((item): LoadedObject => ({ obj: checkObject(item, module, source), source }));
  });
  return {
    dir: displayDir,
    file,
    kind: 'Kustomization',
    spec: {},
    resources: [{ type: 'file', entry: 'templates', path: file, objects: loaded }],
    components: [],
    generators: [],
    transformers: [],
    validators: [],
    files: new Map(),
    filePaths: new Map(),
  };
}

/** A `…List` with items stands for its items, as in resource files and in helm's install. */
function expandList(obj: JsonObject): JsonObject[] {
  const kind = obj.kind;
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(obj.items))
    return obj.items.filter(isJsonObject);
  return [obj];
}

function checkObject(obj: JsonObject, module: string, source: string): JsonObject {
  const metadata = obj.metadata;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  if (typeof obj.kind !== 'string' || obj.kind === '' || typeof name !== 'string' || name === '')
    throw new ChartObjectError(module, source, obj.kind);
  return obj;
}

/** helm printed a document that is not a Kubernetes object kaddon can place in a release. */
class ChartObjectError extends KaddonError {
  readonly code = 'chart-object-invalid';
  constructor(module: string, source: string, kind: JsonObject[string] | undefined) {
    super(
      `module '${module}': ${source}: the chart rendered an object without kind or metadata.name (kind ${JSON.stringify(kind ?? null)}).`,
      'Make the template print a Kubernetes object with apiVersion, kind and metadata.name, or nothing.',
    );
  }
}
