import { asError } from '../core/errors.ts';
import type { KustomizationNode } from '../core/kustomization.ts';
import type { Resource } from '../core/resource.ts';
import { accumulateTarget } from './build-kustomization.ts';
import { annotateBuildMetadata } from './build-metadata.ts';
import { FactsRecorder, isLocalComponent, type OwnerFacts } from './composition-facts.ts';
import { finishBuild } from './finish-build.ts';
import { ResourceAccumulator } from './resource-accumulator.ts';
import { sortLegacy } from './sort-resources.ts';
import { builtinTransformerConfig } from './transformer-config.ts';

/** One enabled module, its files already read and `$(var)`-expanded with its values view. */
export interface ModuleInput {
  readonly name: string;
  /** The module's kustomization; undefined for a module without manifests. */
  readonly node: KustomizationNode | undefined;
}

export interface RenderedModules {
  /** Every enabled module's resources, in module order; each slice in kustomize's output order. */
  readonly slices: ReadonlyMap<string, readonly Resource[]>;
  /** Names of kustomize `vars` declared anywhere: `$(NAME)` left for them is not unresolved. */
  readonly declaredVars: ReadonlySet<string>;
  readonly warnings: readonly string[];
  /**
   * With `isolateFailures`: the Kustomization modules that failed to build, with their errors;
   * they are left out of the composition and have no slice.
   */
  readonly failed: ReadonlyMap<string, Error>;
}

export interface RenderModulesOptions {
  /**
   * A Kustomization module that fails to build is left out and reported in `failed` instead of
   * failing the render: it is built alone and changes no other module's resources. A Component
   * module's failure still fails the render.
   */
  readonly isolateFailures?: boolean;
  /**
   * Keep each Kustomization module's own build with its node and reuse it while the same node comes
   * back (the operator's ModuleLoadCache gives the same node while a module's files and values view
   * are unchanged): a render for one module's values change then builds that module alone again,
   * and composes every module as before.
   */
  readonly reuseBuilds?: boolean;
}

/**
 * Each Kustomization module's own build, by node: a build reads nothing but its node, so the same
 * node builds the same resources. Kept until the node is dropped.
 */
const ownBuilds = new WeakMap<KustomizationNode, ResourceAccumulator>();

/** The module's own build, fresh, or copied from the one kept for its node. */
function buildOwn(node: KustomizationNode, reuse: boolean): ResourceAccumulator {
  if (!reuse) return accumulateTarget(node, new ResourceAccumulator());
  let built = ownBuilds.get(node);
  if (built === undefined) {
    built = accumulateTarget(node, new ResourceAccumulator());
    ownBuilds.set(node, built);
  }
  // The composition changes what it is given in place (Components, the finish): it gets copies.
  const copy = new ResourceAccumulator();
  for (const resource of built.resources) copy.append(resource.clone(), node.file);
  copy.config = built.config;
  copy.vars.push(...built.vars);
  return copy;
}

/** A composition with what it learned about each owner's objects (docs/architecture.md "Incremental composition"). */
export interface Composition {
  readonly rendered: RenderedModules;
  readonly facts: ReadonlyMap<string, OwnerFacts>;
  /**
   * Modules meet only through name references here: no vars, no module's own `configurations`
   * (they configure every later transformer), and every Component changes each object alone.
   */
  readonly separable: boolean;
}

/**
 * Applies the enabled modules in order onto one accumulator (docs/architecture.md "Modules are components"):
 * a Kustomization module is built alone and merged in, so it cannot touch other modules'
 * resources; a Component module transforms everything accumulated so far. Each resource keeps the
 * module that added it, and the result is cut into one slice per module.
 */
export function renderModules(
  modules: readonly ModuleInput[],
  options: RenderModulesOptions = {},
): RenderedModules {
  return composeModules(modules, options, false).rendered;
}

/** renderModules, and with `learn` what the composition found about each owner's objects. */
export function composeModules(
  modules: readonly ModuleInput[],
  options: RenderModulesOptions,
  learn: boolean,
): Composition {
  const ra = new ResourceAccumulator();
  const failed = new Map<string, Error>();
  const recorder = learn ? new FactsRecorder() : undefined;
  let separable = true;
  for (const module of modules) {
    const node = module.node;
    if (!node) continue;
    if (node.kind === 'Component') {
      // What a Component deletes is gone from the result but was met on the way (an id clash).
      const before = recorder ? [...ra.resources] : [];
      accumulateTarget(node, ra);
      recorder?.removed(before, ra.resources);
      // What the Component generated is its own. Only here: taking `ra.resources` drops its id
      // index, and rebuilding it after every module made a tree's render quadratic in its size.
      for (const resource of ra.resources) resource.owner ??= module.name;
      if (learn) separable &&= isLocalComponent(node);
    } else {
      let own: ResourceAccumulator;
      try {
        own = buildOwn(node, options.reuseBuilds === true);
      } catch (error: unknown) {
        if (options.isolateFailures !== true) throw error;
        failed.set(module.name, asError(error));
        continue;
      }
      for (const resource of own.resources) resource.owner = module.name;
      separable &&= own.config === builtinTransformerConfig();
      ra.absorbAccumulator(own, node.file);
    }
  }
  const result = finishBuild(ra, { order: 'fifo' }, recorder);
  const facts = recorder?.facts(ra.resources) ?? new Map<string, OwnerFacts>();
  const slices = new Map<string, Resource[]>(
    modules.filter((module) => !failed.has(module.name)).map((module) => [module.name, []]),
  );
  for (const resource of result.resources) slices.get(resource.owner ?? '')?.push(resource);
  for (const [name, resources] of slices) slices.set(name, sortLegacy(resources));
  // A module's own buildMetadata annotates its slice, paths relative to the module, origins naming it.
  for (const module of modules) {
    const buildMetadata = module.node?.spec.buildMetadata;
    if (module.node && buildMetadata?.length)
      annotateBuildMetadata(slices.get(module.name) ?? [], buildMetadata, module.node.dir, {
        module: module.name,
      });
  }
  const rendered = {
    slices,
    declaredVars: new Set(ra.vars.map((declared) => declared.name)),
    warnings: result.warnings,
    failed,
  };
  return { rendered, facts, separable: learn && separable && ra.vars.length === 0 };
}
