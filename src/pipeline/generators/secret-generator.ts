import type { JsonObject } from '../../core/json.ts';
import type { GeneratorOptions, KustomizationNode, SecretArgs } from '../../core/kustomization.ts';
import { generateObject, type GeneratedObject } from './generated-object.ts';
import { encodeBase64Lines, sortedByKey, type DataItem } from './generator-data.ts';

export type { GeneratedObject } from './generated-object.ts';

/**
 * A `secretGenerator` entry as a Secret (kustomize's api/kv): every value base64-encoded under `data`
 * (present even when empty), `type` defaulting to Opaque.
 */
export function generateSecret(
  args: SecretArgs,
  options: GeneratorOptions | undefined,
  node: KustomizationNode,
): GeneratedObject {
  const type = args.type === undefined || args.type === '' ? 'Opaque' : args.type;
  const content = (items: readonly DataItem[]): JsonObject => ({ type, data: secretData(items) });
  return generateObject({ field: 'secretGenerator', kind: 'Secret', content }, args, options, node);
}

function secretData(items: readonly DataItem[]): JsonObject {
  return Object.fromEntries(sortedByKey(items).map(({ key, value }) => [key, encodeBase64Lines(value)]));
}
