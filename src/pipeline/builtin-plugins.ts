import { KustomizeError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type {
  FieldSpec,
  GeneratorArgs,
  KustomizationNode,
  Replacement,
  ReplicaEntry,
  ResourceEntry,
  Selector,
} from '../core/kustomization.ts';
import { Resource, type ResourceOrigin } from '../core/resource.ts';
import { generateConfigMap } from './generators/config-map-generator.ts';
import { generateSecret } from './generators/secret-generator.ts';
import { ResourceAccumulator } from './resource-accumulator.ts';
import { transformAnnotations } from './transformers/annotations.ts';
import { transformImages } from './transformers/images.ts';
import { toStringMap } from './transformers/metadata-map.ts';
import { transformNamePrefixSuffix } from './transformers/name-prefix-suffix.ts';
import { transformNamespace } from './transformers/namespace.ts';
import { applyPatches, applyPatchesJson6902, applyPatchesStrategicMerge } from './transformers/patches.ts';
import { applyReplacements } from './transformers/replacements.ts';
import { transformReplicas } from './transformers/replicas.ts';
import { setMapEntries } from './transformers/metadata-map.ts';

/** Builds a directory entry of `generators:` / `transformers:` into its plugin configuration objects. */
export type DirectoryBuilder = (node: KustomizationNode) => readonly Resource[];

type PluginContext = {
  readonly ra: ResourceAccumulator;
  readonly node: KustomizationNode;
  /** The plugin configuration's file and identity, for origin and transformer annotations. */
  readonly origin?: ResourceOrigin;
};
type PluginHandler = (config: JsonObject, context: PluginContext) => void;

const generatorPlugins = {
  ConfigMapGenerator: (config, { ra, node, origin }) => {
    const { resource, behavior } = generateConfigMap(generatorArgs(config), undefined, node);
    resource.origin = origin;
    ra.absorbGenerated(resource, behavior, node.file);
  },
  SecretGenerator: (config, { ra, node, origin }) => {
    const { resource, behavior } = generateSecret(generatorArgs(config), undefined, node);
    resource.origin = origin;
    ra.absorbGenerated(resource, behavior, node.file);
  },
  IAMPolicyGenerator: (config, { ra, node, origin }) => {
    const resource = new Resource(
      gkeServiceAccount(config, node),
      `IAMPolicyGenerator '${nameOf(config)}' in ${node.file}`,
    );
    resource.origin = origin;
    ra.absorbGenerated(resource, 'create', node.file);
  },
} satisfies Record<string, PluginHandler>;

/**
 * kustomize's IAMPolicyGenerator (api/filters/iampolicygenerator): for `cloud: gke`, a Kubernetes
 * ServiceAccount bound to a Google service account by Workload Identity's annotation.
 */
function gkeServiceAccount(config: JsonObject, node: KustomizationNode): JsonObject {
  if (config.cloud !== 'gke') {
    throw new KustomizeError(
      'generator-invalid',
      node.file,
      `IAMPolicyGenerator '${nameOf(config)}': cloud provider ${text(config.cloud)} not supported yet`,
      'Set cloud: gke, the only provider kustomize generates for.',
    );
  }
  const kubernetes = isJsonObject(config.kubernetesService) ? config.kubernetesService : {};
  const google = isJsonObject(config.serviceAccount) ? config.serviceAccount : {};
  const namespace = text(kubernetes.namespace);
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      annotations: {
        'iam.gke.io/gcp-service-account': `${text(google.name)}@${text(google.projectId)}.iam.gserviceaccount.com`,
      },
      name: text(kubernetes.name),
      ...(namespace ? { namespace } : {}),
    },
  };
}

/**
 * kustomize's builtin transformers as `transformers:` configurations name them
 * (`apiVersion: builtin`), each mapped onto the transformer the kustomization fields use.
 */
const transformerPlugins = {
  PatchTransformer: (config, { ra, node }) => {
    applyPatches(ra, [config], node);
  },
  PatchStrategicMergeTransformer: (config, { ra, node }) => {
    const inline = Array.isArray(config.patches)
      ? config.patches
      : typeof config.patches === 'string'
        ? [config.patches]
        : [];
    applyPatchesStrategicMerge(ra, [...strings(config.paths), ...strings(inline)], node);
  },
  PatchJson6902Transformer: (config, { ra, node }) => {
    const target = config.target as unknown as Selector & { name: string };
    applyPatchesJson6902(
      ra,
      [
        {
          target,
          ...(typeof config.jsonOp === 'string' ? { patch: config.jsonOp } : {}),
          ...(typeof config.path === 'string' ? { path: config.path } : {}),
        },
      ],
      node,
    );
  },
  PrefixSuffixTransformer: (config, { ra }) => {
    const specs = fieldSpecs(config) ?? ra.config.namePrefix;
    transformNamePrefixSuffix(ra.resources, text(config.prefix), text(config.suffix), specs);
  },
  PrefixTransformer: (config, { ra }) => {
    transformNamePrefixSuffix(
      ra.resources,
      text(config.prefix),
      '',
      fieldSpecs(config) ?? ra.config.namePrefix,
    );
  },
  SuffixTransformer: (config, { ra }) => {
    transformNamePrefixSuffix(
      ra.resources,
      '',
      text(config.suffix),
      fieldSpecs(config) ?? ra.config.nameSuffix,
    );
  },
  LabelTransformer: (config, { ra }) => {
    setMapEntries(
      ra.resources,
      toStringMap(mapOf(config.labels)),
      fieldSpecs(config) ?? ra.config.commonLabels,
    );
  },
  AnnotationsTransformer: (config, { ra }) => {
    transformAnnotations(
      ra.resources,
      toStringMap(mapOf(config.annotations)),
      fieldSpecs(config) ?? ra.config.commonAnnotations,
    );
  },
  NamespaceTransformer: (config, { ra, node }) => {
    const namespace = isJsonObject(config.metadata) ? text(config.metadata.namespace) : '';
    transformNamespace(ra.resources, namespace, fieldSpecs(config) ?? ra.config.namespace);
    ra.checkUniqueIds(node.file, 'namespace');
  },
  ImageTagTransformer: (config, { ra, node }) => {
    transformImages(
      ra.resources,
      [requireMap(config, 'imageTag', node)],
      fieldSpecs(config) ?? ra.config.images,
    );
  },
  ReplicaCountTransformer: (config, { ra, node }) => {
    const replica = requireMap(config, 'replica', node) as ReplicaEntry;
    transformReplicas(ra.resources, [replica], fieldSpecs(config) ?? ra.config.replicas, node.file);
  },
  ReplacementTransformer: (config, { ra, node }) => {
    applyReplacements(ra.resources, (config.replacements ?? []) as Replacement[], node.file);
  },
} satisfies Record<string, PluginHandler>;

/** Runs the `generators:` field's plugin configurations. */
export function runGeneratorPlugins(
  ra: ResourceAccumulator,
  node: KustomizationNode,
  build: DirectoryBuilder,
): void {
  runPlugins(node.generators, generatorPlugins, 'generators', { ra, node }, build);
}

/** Runs the `transformers:` field's plugin configurations, in order. */
export function runTransformerPlugins(
  ra: ResourceAccumulator,
  node: KustomizationNode,
  build: DirectoryBuilder,
): void {
  runPlugins(node.transformers, transformerPlugins, 'transformers', { ra, node }, build);
}

function runPlugins(
  entries: readonly ResourceEntry[],
  handlers: Record<string, PluginHandler>,
  field: string,
  context: PluginContext,
  build: DirectoryBuilder,
): void {
  for (const entry of entries) {
    const configs =
      entry.type === 'file'
        ? // An inline configuration is configured in the kustomization file itself (entry.path).
          entry.objects.map((loaded) => ({ config: loaded.obj, file: entry.path }))
        : build(entry.node).map((built) => ({ config: built.obj, file: entry.node.file }));
    for (const { config, file } of configs) {
      const kind = typeof config.kind === 'string' ? config.kind : '';
      const handler = config.apiVersion === 'builtin' ? handlers[kind] : undefined;
      if (!handler) {
        throw new KustomizeError(
          'transformer-invalid',
          context.node.file,
          `${field} entry '${entry.entry}': ${JSON.stringify(config.apiVersion ?? null)} ${kind} is not a builtin plugin kaddon runs`,
          `Use one of the builtin kinds (${Object.keys(handlers).join(', ')}) with apiVersion: builtin; external plugins are not run.`,
        );
      }
      const origin = pluginOrigin(config, file);
      handler(config, { ...context, origin });
      if (handlers === transformerPlugins)
        for (const resource of context.ra.resources) resource.transformations.push(origin);
    }
  }
}

function pluginOrigin(config: JsonObject, file: string): ResourceOrigin {
  const name = nameOf(config);
  const namespace = isJsonObject(config.metadata) ? text(config.metadata.namespace) : '';
  return {
    configuredIn: file,
    configuredBy: {
      apiVersion: text(config.apiVersion),
      kind: text(config.kind),
      ...(name ? { name } : {}),
      ...(namespace ? { namespace } : {}),
    },
  };
}

function generatorArgs(config: JsonObject): GeneratorArgs {
  const metadata = isJsonObject(config.metadata) ? config.metadata : {};
  const args = { ...config } as GeneratorArgs & { metadata?: unknown; apiVersion?: unknown; kind?: unknown };
  delete args.metadata;
  delete args.apiVersion;
  delete args.kind;
  // The generated object's name is the configuration's own `name` field, as kustomize reads its
  // GeneratorArgs; metadata.name only names the plugin configuration (and stands in when there is none).
  return {
    ...args,
    name: typeof config.name === 'string' && config.name !== '' ? config.name : text(metadata.name),
    ...(metadata.namespace ? { namespace: text(metadata.namespace) } : {}),
  };
}

function requireMap(config: JsonObject, field: string, node: KustomizationNode): JsonObject {
  const value = config[field];
  if (isJsonObject(value)) return value;
  throw new KustomizeError(
    'transformer-invalid',
    node.file,
    `builtin ${text(config.kind)} '${nameOf(config)}' has no ${field} map`,
    `Add the ${field} field to the plugin configuration.`,
  );
}

function nameOf(config: JsonObject): string {
  return isJsonObject(config.metadata) ? text(config.metadata.name) : '';
}

function fieldSpecs(config: JsonObject): FieldSpec[] | undefined {
  return Array.isArray(config.fieldSpecs) ? (config.fieldSpecs as unknown as FieldSpec[]) : undefined;
}

function mapOf(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
