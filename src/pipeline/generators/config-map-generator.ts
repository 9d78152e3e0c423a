import type { JsonObject } from '../../core/json.ts';
import type { GeneratorArgs, GeneratorOptions, KustomizationNode } from '../../core/kustomization.ts';
import { generateObject, type GeneratedObject } from './generated-object.ts';
import { decodeUtf8, encodeBase64Lines, sortedByKey, type DataItem } from './generator-data.ts';

export type { GeneratedObject } from './generated-object.ts';

/**
 * A `configMapGenerator` entry as a ConfigMap (kustomize's api/kv): UTF-8 values under `data`, other
 * file content base64-encoded under `binaryData`; a map with no keys is left out.
 */
export function generateConfigMap(
  args: GeneratorArgs,
  options: GeneratorOptions | undefined,
  node: KustomizationNode,
): GeneratedObject {
  return generateObject(
    { field: 'configMapGenerator', kind: 'ConfigMap', content: configMapContent },
    args,
    options,
    node,
  );
}

function configMapContent(items: readonly DataItem[]): JsonObject {
  const data: JsonObject = {};
  const binaryData: JsonObject = {};
  for (const { key, value } of sortedByKey(items)) {
    const text = decodeUtf8(value);
    if (text === undefined) binaryData[key] = encodeBase64Lines(value);
    else data[key] = text;
  }
  const content: JsonObject = {};
  if (Object.keys(data).length > 0) content.data = data;
  if (Object.keys(binaryData).length > 0) content.binaryData = binaryData;
  return content;
}
