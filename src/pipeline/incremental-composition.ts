import type { Resource } from '../core/resource.ts';
import { factsOf, type OwnerFacts } from './composition-facts.ts';
import {
  composeModules,
  type Composition,
  type ModuleInput,
  type RenderedModules,
  type RenderModulesOptions,
} from './render-modules.ts';

/** How the last render came about: whole, from the modules that changed, or the last one as it was. */
export type CompositionPath = 'whole' | 'changed modules' | 'unchanged';

/**
 * The last composition of one tree, to compose the next from the modules that changed
 * (docs/architecture.md "Incremental composition"). The operator renders the whole tree for every
 * values change; when a few Kustomization modules come back with new nodes and every other module
 * with the same one, only those modules and the Component modules are composed again, and the
 * other modules keep their slices, when nothing can carry a change from one module into another:
 * no vars, no module's own `configurations`, Components that change each object alone, and no
 * name reference or id shared between a changed module and an unchanged one. Otherwise the whole
 * tree is composed, as without the memo. Either way the result is the same.
 */
export class CompositionMemo {
  #last: { readonly inputs: readonly ModuleInput[]; readonly composition: Composition } | undefined;
  #path: CompositionPath = 'whole';

  /** How the last render came about. */
  get lastPath(): CompositionPath {
    return this.#path;
  }

  render(modules: readonly ModuleInput[], options: RenderModulesOptions): RenderedModules {
    const last = this.#last;
    const changed = last === undefined ? undefined : changedModules(last.inputs, modules);
    if (last !== undefined && changed?.size === 0) {
      this.#last = { inputs: modules, composition: last.composition };
      this.#path = 'unchanged';
      return last.composition.rendered;
    }
    const partial =
      last !== undefined && changed !== undefined
        ? composeChanged(last.composition, modules, changed, options)
        : undefined;
    const composition = partial ?? composeModules(modules, options, true);
    this.#last = composition.separable ? { inputs: modules, composition } : undefined;
    this.#path = partial === undefined ? 'whole' : 'changed modules';
    return composition.rendered;
  }
}

/**
 * The Kustomization modules whose node is new; undefined when the list of modules differs or a
 * Component module changed (a Component reaches every module before it).
 */
function changedModules(
  before: readonly ModuleInput[],
  modules: readonly ModuleInput[],
): Set<string> | undefined {
  if (before.length !== modules.length) return undefined;
  const changed = new Set<string>();
  for (const [i, module] of modules.entries()) {
    const previous = before[i];
    if (previous?.name !== module.name) return undefined;
    if (previous.node === module.node) continue;
    if (previous.node?.kind === 'Component' || module.node?.kind === 'Component') return undefined;
    changed.add(module.name);
  }
  return changed;
}

/**
 * The changed modules composed with the Component modules alone, and the result merged with the
 * last composition's other slices; undefined when that would not be what the whole tree gives.
 */
function composeChanged(
  last: Composition,
  modules: readonly ModuleInput[],
  changed: ReadonlySet<string>,
  options: RenderModulesOptions,
): Composition | undefined {
  const components = modules.filter((module) => module.node?.kind === 'Component').map((m) => m.name);
  const recomposed = new Set([...changed, ...components]);
  let part: Composition;
  try {
    part = composeModules(
      modules.filter((module) => recomposed.has(module.name)),
      options,
      true,
    );
  } catch {
    // A Component that fails without the unchanged modules (a patch aimed at one of them by
    // name) may not fail with them: the whole tree tells.
    return undefined;
  }
  if (!part.separable) return undefined;
  // The Components' own objects come out as before, or they may have met the unchanged modules'.
  for (const component of components)
    if (factsOf(part.facts, component).fingerprint !== factsOf(last.facts, component).fingerprint)
      return undefined;
  if (!isIndependent(last.facts, part.facts, changed, recomposed)) return undefined;
  return merge(last, part, modules, recomposed);
}

/**
 * Whether the modules not composed again would come out as they did, and the ones composed again
 * as they would among all: no unchanged module's reference looks for a name a changed module's
 * objects had or have (or asks after a namespace they were in), no recomposed reference looks for
 * a name or namespace of an unchanged module's objects, and no id of a changed module's objects
 * was ever held by an unchanged module's.
 */
function isIndependent(
  lastFacts: ReadonlyMap<string, OwnerFacts>,
  partFacts: ReadonlyMap<string, OwnerFacts>,
  changed: ReadonlySet<string>,
  recomposed: ReadonlySet<string>,
): boolean {
  const changedNames = new Set<string>();
  const changedNamespaces = new Set<string>();
  const changedIds = new Set<string>();
  for (const module of changed) {
    for (const facts of [factsOf(lastFacts, module), factsOf(partFacts, module)]) {
      addAll(changedNames, facts.names);
      addAll(changedNamespaces, facts.namespaces);
    }
    addAll(changedIds, factsOf(partFacts, module).ids);
  }
  const lookedUp = new Set<string>();
  const queried = new Set<string>();
  for (const owner of recomposed) {
    addAll(lookedUp, factsOf(partFacts, owner).lookedUp);
    addAll(queried, factsOf(partFacts, owner).queried);
  }
  for (const [owner, facts] of lastFacts) {
    if (recomposed.has(owner)) continue;
    if (
      meets(facts.lookedUp, changedNames) ||
      meets(facts.queried, changedNamespaces) ||
      meets(facts.names, lookedUp) ||
      meets(facts.namespaces, queried) ||
      meets(facts.ids, changedIds)
    )
      return false;
  }
  return true;
}

/** The last composition with the recomposed modules' slices, failures and facts replaced. */
function merge(
  last: Composition,
  part: Composition,
  modules: readonly ModuleInput[],
  recomposed: ReadonlySet<string>,
): Composition {
  const slices = new Map<string, readonly Resource[]>();
  const failed = new Map<string, Error>();
  for (const { name } of modules) {
    const from = recomposed.has(name) ? part.rendered : last.rendered;
    const slice = from.slices.get(name);
    if (slice !== undefined) slices.set(name, slice);
    const failure = from.failed.get(name);
    if (failure !== undefined) failed.set(name, failure);
  }
  const facts = new Map([...last.facts].filter(([owner]) => !recomposed.has(owner)));
  for (const [owner, ownerFacts] of part.facts) facts.set(owner, ownerFacts);
  const rendered: RenderedModules = {
    slices,
    // Separable compositions declare no vars and warn of none (finishBuild warns of unused vars).
    declaredVars: new Set(),
    warnings: [],
    failed,
  };
  return { rendered, facts, separable: true };
}

function addAll(into: Set<string>, from: ReadonlySet<string>): void {
  for (const item of from) into.add(item);
}

function meets(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const item of small) if (large.has(item)) return true;
  return false;
}
