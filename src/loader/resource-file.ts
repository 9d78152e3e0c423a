import { KustomizeError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { LoadedObject } from '../core/kustomization.ts';
import { parseYamlDocuments, type YamlExpansion } from '../core/yaml/yaml.ts';

/**
 * Parses a resource file: a YAML stream of objects. `…List` objects with `items` are replaced by their items;
 * every object needs kind and metadata.name (kustomize's api/internal/target/kusttarget.go "Resource files").
 */
export function parseResourceFile(text: string, file: string, expansion?: YamlExpansion): LoadedObject[] {
  const out: LoadedObject[] = [];
  for (const doc of parseYamlDocuments(text, file, expansion)) {
    const source = `${file}:${doc.line}`;
    if (!isJsonObject(doc.value)) {
      throw new KustomizeError(
        'resource-invalid',
        source,
        'the document is not a Kubernetes object',
        'Each YAML document must be a map with apiVersion, kind and metadata.',
      );
    }
    for (const obj of expandList(doc.value)) {
      clearEmptyAnnotations(obj);
      out.push({ obj: checkObject(obj, source), source });
    }
  }
  return out;
}

/**
 * An empty or null `metadata.annotations` is dropped as kustomize drops it: kyaml clears the map
 * once it has taken its own internal annotations out (docs/differences-from-kustomize.md keeps
 * the fine print). Other empty fields are kept.
 */
function clearEmptyAnnotations(obj: JsonObject): void {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata) || !('annotations' in metadata)) return;
  const annotations = metadata.annotations;
  if (annotations === null || (isJsonObject(annotations) && Object.keys(annotations).length === 0))
    Reflect.deleteProperty(metadata, 'annotations');
}

function expandList(obj: JsonObject): JsonObject[] {
  const kind = obj.kind;
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(obj.items)) {
    return obj.items.filter(isJsonObject);
  }
  return [obj];
}

// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

function checkObject(obj: JsonObject, source: string): JsonObject {
  const metadata = obj.metadata;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  if (typeof name !== 'string' || name === '') {
    throw new KustomizeError(
      'resource-invalid',
      source,
      `missing metadata.name in object of kind ${JSON.stringify(obj.kind ?? null)}`,
      'Give the object a metadata.name.',
    );
  }
  for (const [field, value] of [
    ['metadata.name', name],
    ['metadata.namespace', isJsonObject(metadata) ? metadata.namespace : undefined],
    ['kind', obj.kind],
  ] as const) {
    if (typeof value === 'string' && CONTROL_CHARACTER.test(value))
      throw new KustomizeError(
        'resource-invalid',
        source,
        `${field} ${JSON.stringify(value)} holds a control character`,
        'Names, namespaces and kinds are printable text: the API server refuses anything else.',
      );
  }
  if (typeof obj.kind !== 'string' || obj.kind === '') {
    throw new KustomizeError(
      'resource-invalid',
      source,
      `missing kind in object '${name}'`,
      'Give the object a kind and an apiVersion.',
    );
  }
  return obj;
}
