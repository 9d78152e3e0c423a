import { declaredKustomizationKind } from '../../loader/kustomization-file.ts';
import type { ModuleDefinition, ModulesTree } from '../../loader/modules-tree.ts';

/**
 * The modules whose runs in the pool a run of `module` waits for (docs/lifecycle.md "Parallel
 * module runs"): the modules it requires (module.yaml), and the composition's order: a Component
 * module comes after every module before it, whose objects it changes, and a module comes after a
 * Component module behind it that changes its objects. `pending` tells which modules have a run in
 * the pool.
 */
export function runsToAwait(
  tree: ModulesTree,
  module: string,
  pending: (module: string) => boolean,
): string[] {
  const index = tree.modules.findIndex((candidate) => candidate.name === module);
  const definition = tree.modules[index];
  if (definition === undefined) return [];
  const component = isComponentModule(tree, definition);
  return tree.modules
    .filter((other, otherIndex) => {
      if (other.name === module || !pending(other.name)) return false;
      if (definition.requires.includes(other.name)) return true;
      return otherIndex < index ? component : isComponentModule(tree, other);
    })
    .map((other) => other.name);
}

/**
 * Whether the module is applied onto what the modules before it accumulated (docs/architecture.md
 * "Modules are components"). A kustomization whose kind cannot be read counts as one: it could
 * reach any module's objects.
 */
function isComponentModule(tree: ModulesTree, module: ModuleDefinition): boolean {
  if (module.source !== 'kustomization') return false;
  let kinds = componentKinds.get(tree);
  if (kinds === undefined) {
    kinds = new Map();
    componentKinds.set(tree, kinds);
  }
  let component = kinds.get(module.name);
  if (component === undefined) {
    component = declaredKustomizationKind(module.dir) !== 'Kustomization';
    kinds.set(module.name, component);
  }
  return component;
}

/** Read once per tree: a new tree (a Git revision) is read again. */
const componentKinds = new WeakMap<ModulesTree, Map<string, boolean>>();
