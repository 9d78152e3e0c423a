import { KustomizeError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { GeneratorArgs, GeneratorOptions, KustomizationNode } from '../../core/kustomization.ts';
import { Resource, type GeneratorBehavior } from '../../core/resource.ts';
import { collectGeneratorData, type DataItem, type GeneratorField } from './generator-data.ts';

/**
 * A ConfigMap or Secret made by a generator entry, and how it joins what is accumulated (kustomize's
 * api/resmap/reswrangler.go).
 */
export interface GeneratedObject {
  resource: Resource;
  behavior: GeneratorBehavior;
}

/**
 * The kustomization-wide `generatorOptions` merged into an entry's own `options` (kustomize's api/types/generatoroptions.go): labels and
 * annotations per key with the entry winning; the booleans OR-ed, so a global true stays true.
 */
function mergeGeneratorOptions(
  global: GeneratorOptions | undefined,
  local: GeneratorOptions | undefined,
): Required<GeneratorOptions> {
  return {
    labels: { ...global?.labels, ...local?.labels },
    annotations: { ...global?.annotations, ...local?.annotations },
    disableNameSuffixHash: global?.disableNameSuffixHash === true || local?.disableNameSuffixHash === true,
    immutable: global?.immutable === true || local?.immutable === true,
  };
}

/** Anything but merge or replace, the empty value included, behaves as create. */
function behaviorOf(value: string | undefined): GeneratorBehavior {
  return value === 'merge' || value === 'replace' ? value : 'create';
}

export interface GeneratorSpec {
  readonly field: GeneratorField;
  readonly kind: 'ConfigMap' | 'Secret';
  /** The kind-specific top-level fields (`data`, `binaryData`, `type`) made from the items. */
  readonly content: (items: readonly DataItem[]) => JsonObject;
}

/** Builds the object a generator entry describes: name, namespace, options, then the content. */
export function generateObject(
  spec: GeneratorSpec,
  args: GeneratorArgs,
  globalOptions: GeneratorOptions | undefined,
  node: KustomizationNode,
): GeneratedObject {
  const name = args.name;
  if (name === undefined || name === '') {
    throw new KustomizeError(
      'generator-invalid',
      node.file,
      `a ${spec.field} entry has no name`,
      `Give every ${spec.field} entry a name.`,
    );
  }
  const options = mergeGeneratorOptions(globalOptions, args.options);
  const items = collectGeneratorData({ field: spec.field, name, node }, args);
  const obj: JsonObject = {
    apiVersion: 'v1',
    kind: spec.kind,
    metadata: metadataOf(name, args.namespace, options),
    ...spec.content(items),
  };
  if (options.immutable) obj.immutable = true;
  const resource = new Resource(obj, `${spec.field} '${name}' in ${node.file}`);
  resource.needsHashSuffix = !options.disableNameSuffixHash;
  return { resource, behavior: behaviorOf(args.behavior) };
}

function metadataOf(
  name: string,
  namespace: string | undefined,
  options: Required<GeneratorOptions>,
): JsonObject {
  const metadata: JsonObject = { name };
  if (namespace !== undefined && namespace !== '') metadata.namespace = namespace;
  if (Object.keys(options.labels).length > 0) metadata.labels = { ...options.labels };
  if (Object.keys(options.annotations).length > 0) metadata.annotations = { ...options.annotations };
  return metadata;
}
