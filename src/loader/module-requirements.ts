import path from 'node:path';
import { ModuleManifestError } from './module-manifest.ts';

/** The part of a module the order of requirements needs. */
export interface RequiringModule {
  readonly name: string;
  readonly dir: string;
  readonly requires: readonly string[];
}

/**
 * The modules in an order where each comes after the modules it requires, and otherwise in the order
 * given (numbers, then names): among the modules whose requirements are placed, the first of the
 * given order goes next. A requirement on a module the tree lacks, or a cycle, is an error naming
 * every module in it (docs/modules.md "module.yaml").
 */
export function orderByRequirements<T extends RequiringModule>(modules: readonly T[]): T[] {
  const byName = new Map(modules.map((module) => [module.name, module]));
  for (const module of modules)
    for (const required of module.requires)
      if (!byName.has(required))
        throw new ModuleManifestError(
          path.join(module.dir, 'module.yaml'),
          `module '${module.name}' requires module '${required}', which the modules tree does not have`,
          'Add the module to the tree, or remove the requirement.',
        );
  const placed = new Set<string>();
  const ordered: T[] = [];
  while (ordered.length < modules.length) {
    const next = modules.find(
      (module) => !placed.has(module.name) && module.requires.every((required) => placed.has(required)),
    );
    if (next === undefined)
      throw cycleError(
        modules.filter((module) => !placed.has(module.name)),
        byName,
      );
    placed.add(next.name);
    ordered.push(next);
  }
  return ordered;
}

/** Names the cycle among the modules left: followed from one of them until a module repeats. */
function cycleError<T extends RequiringModule>(
  left: readonly T[],
  byName: ReadonlyMap<string, T>,
): ModuleManifestError {
  const leftNames = new Set(left.map((module) => module.name));
  const path_: string[] = [];
  let current = left[0];
  while (current !== undefined && !path_.includes(current.name)) {
    path_.push(current.name);
    const nextName = current.requires.find((required) => leftNames.has(required));
    current = nextName === undefined ? undefined : byName.get(nextName);
  }
  const cycle = current === undefined ? path_ : [...path_.slice(path_.indexOf(current.name)), current.name];
  const first = byName.get(cycle[0] ?? '');
  return new ModuleManifestError(
    path.join(first?.dir ?? '.', 'module.yaml'),
    `the modules require each other in a cycle: ${cycle.join(' → ')}`,
    'Remove one of the requirements so that the modules can run one after another.',
  );
}
