import { deepClone } from '../core/json.ts';
import type { KustomizationNode } from '../core/kustomization.ts';
import { Resource, type ResourceOrigin } from '../core/resource.ts';
import { generateConfigMap } from './generators/config-map-generator.ts';
import { generateSecret } from './generators/secret-generator.ts';
import { runGeneratorPlugins, runTransformerPlugins } from './builtin-plugins.ts';
import { annotateBuildMetadata } from './build-metadata.ts';
import { finishBuild, type BuildResult } from './finish-build.ts';
import { ResourceAccumulator } from './resource-accumulator.ts';
import { parseTransformerConfig, mergeTransformerConfigs } from './transformer-config.ts';
import { transformAnnotations } from './transformers/annotations.ts';
import { transformImages } from './transformers/images.ts';
import { transformLabels } from './transformers/labels.ts';
import { transformNamePrefixSuffix } from './transformers/name-prefix-suffix.ts';
import { transformNamespace } from './transformers/namespace.ts';
import { applyPatches, applyPatchesJson6902, applyPatchesStrategicMerge } from './transformers/patches.ts';
import { applyReplacementEntries } from './transformers/replacement-entries.ts';
import { transformReplicas } from './transformers/replicas.ts';
import { declareVars } from './transformers/vars.ts';
import { parseYamlDocument } from '../core/yaml/yaml.ts';
import { toStringMap } from './transformers/metadata-map.ts';

/**
 * kustomize's build options that change the output: `reorder` is `kustomize build --reorder`
 * (`legacy`, the default, sorts by kind; `none` keeps the order resources were accumulated in).
 * A kustomization's own `sortOptions` win over it, as in kustomize.
 */
export interface BuildOptions {
  readonly reorder?: 'legacy' | 'none';
}

/** Builds a kustomization tree the way `kustomize build` does, without touching the disk. */
export function buildKustomization(node: KustomizationNode, options: BuildOptions = {}): BuildResult {
  const ra = accumulateTarget(node, new ResourceAccumulator());
  const sortOptions =
    node.spec.sortOptions ?? (options.reorder === 'none' ? { order: 'fifo' as const } : undefined);
  const result = finishBuild(ra, sortOptions);
  annotateBuildMetadata(result.resources, node.spec.buildMetadata ?? [], node.dir);
  return result;
}

/**
 * One kustomization onto an accumulator, in kustomize's order (kustomize's
 * api/internal/target/kusttarget.go): resources, configurations, generators, components (onto this same
 * accumulator), then this kustomization's own transformers, and finally its vars.
 */
export function accumulateTarget(node: KustomizationNode, ra: ResourceAccumulator): ResourceAccumulator {
  accumulateResources(node, ra);
  mergeConfigurations(node, ra);
  runGenerators(node, ra);
  for (const component of node.components) accumulateTarget(component, ra);
  runTransformers(node, ra);
  declareVars(ra, node.spec.vars ?? [], node.file);
  return ra;
}

function accumulateResources(node: KustomizationNode, ra: ResourceAccumulator): void {
  for (const entry of node.resources) {
    if (entry.type === 'directory') {
      ra.absorbAccumulator(accumulateTarget(entry.node, new ResourceAccumulator()), node.file);
      continue;
    }
    for (const loaded of entry.objects) {
      const resource = new Resource(deepClone(loaded.obj), loaded.source);
      resource.origin = { path: loaded.source.replace(/:\d+$/, '') };
      ra.append(resource, node.file);
    }
  }
}

function mergeConfigurations(node: KustomizationNode, ra: ResourceAccumulator): void {
  for (const entry of node.spec.configurations ?? []) {
    const bytes = node.files.get(entry);
    if (!bytes) throw new Error(`loader did not read configurations file '${entry}' of ${node.file}`);
    const file = node.filePaths.get(entry) ?? entry;
    const doc = parseYamlDocument(Buffer.from(bytes).toString('utf8'), file);
    ra.config = mergeTransformerConfigs(ra.config, parseTransformerConfig(doc ?? {}, file), file);
  }
}

function runGenerators(node: KustomizationNode, ra: ResourceAccumulator): void {
  const options = node.spec.generatorOptions;
  for (const args of node.spec.configMapGenerator ?? []) {
    const { resource, behavior } = generateConfigMap(args, options, node);
    resource.origin = builtinOrigin(node, 'ConfigMapGenerator');
    ra.absorbGenerated(resource, behavior, node.file);
  }
  for (const args of node.spec.secretGenerator ?? []) {
    const { resource, behavior } = generateSecret(args, options, node);
    resource.origin = builtinOrigin(node, 'SecretGenerator');
    ra.absorbGenerated(resource, behavior, node.file);
  }
  runGeneratorPlugins(ra, node, buildPluginDirectory);
}

/**
 * This kustomization's transformers in kustomize's fixed order (kustomize's api/internal/target/kusttarget.go
 * step 6).
 */
function runTransformers(node: KustomizationNode, ra: ResourceAccumulator): void {
  const spec = node.spec;
  // Each configured builtin transformer is recorded on every object it processed (transformerAnnotations).
  const ran = (kind: string, count = 1): void => {
    for (let i = 0; i < count; i++) recordTransformation(ra.resources, builtinOrigin(node, kind));
  };
  applyPatchesStrategicMerge(ra, spec.patchesStrategicMerge ?? [], node);
  if (spec.patchesStrategicMerge?.length) ran('PatchStrategicMergeTransformer');
  applyPatches(ra, spec.patches ?? [], node);
  ran('PatchTransformer', spec.patches?.length ?? 0);
  if (spec.namespace) {
    transformNamespace(ra.resources, spec.namespace, ra.config.namespace);
    ra.checkUniqueIds(node.file, 'namespace');
    ran('NamespaceTransformer');
  }
  transformNamePrefixSuffix(ra.resources, spec.namePrefix ?? '', '', ra.config.namePrefix);
  if (spec.namePrefix) ran('PrefixTransformer');
  transformNamePrefixSuffix(ra.resources, '', spec.nameSuffix ?? '', ra.config.nameSuffix);
  if (spec.nameSuffix) ran('SuffixTransformer');
  const commonLabels = spec.commonLabels ? toStringMap(spec.commonLabels) : undefined;
  transformLabels(ra.resources, spec.labels ?? [], commonLabels, ra.config);
  ran('LabelTransformer', (spec.labels?.length ?? 0) + (commonLabels ? 1 : 0));
  transformAnnotations(ra.resources, toStringMap(spec.commonAnnotations), ra.config.commonAnnotations);
  if (spec.commonAnnotations) ran('AnnotationsTransformer');
  applyPatchesJson6902(ra, spec.patchesJson6902 ?? [], node);
  ran('PatchJson6902Transformer', spec.patchesJson6902?.length ?? 0);
  transformReplicas(ra.resources, spec.replicas ?? [], ra.config.replicas, node.file);
  ran('ReplicaCountTransformer', spec.replicas?.length ?? 0);
  transformImages(ra.resources, spec.images ?? [], ra.config.images);
  ran('ImageTagTransformer', spec.images?.length ?? 0);
  applyReplacementEntries(ra.resources, spec.replacements ?? [], node);
  if (spec.replacements?.length) ran('ReplacementTransformer');
  runTransformerPlugins(ra, node, buildPluginDirectory);
}

/** A builtin generator or transformer configured by a kustomization's own fields. */
function builtinOrigin(node: KustomizationNode, kind: string): ResourceOrigin {
  return { configuredIn: node.file, configuredBy: { apiVersion: 'builtin', kind } };
}

function recordTransformation(resources: readonly Resource[], origin: ResourceOrigin): void {
  for (const resource of resources) resource.transformations.push(origin);
}

/** A `generators:` / `transformers:` directory is a kustomization whose output is plugin configs. */
function buildPluginDirectory(node: KustomizationNode): readonly Resource[] {
  return accumulateTarget(node, new ResourceAccumulator()).resources;
}
