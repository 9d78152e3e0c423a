import { isJsonObject } from '../../core/json.ts';
import type { Resource } from '../../core/resource.ts';

/**
 * The modules among `isPending` that this one needs first (docs/lifecycle.md "Overlapping
 * delivery"): those that hold a Namespace its objects live in, or a CustomResourceDefinition of
 * one of its kinds. Looked up in an index of the render's slices, made once per render: scanning
 * every slice for every module cost a second of CPU at 1,000 modules.
 */
export function prerequisites(
  module: string,
  resources: readonly Resource[],
  slices: ReadonlyMap<string, readonly Resource[]>,
  isPending: (module: string) => boolean,
): string[] {
  const index = prerequisiteIndex(slices);
  const holders = new Set<string>();
  const add = (found: readonly string[] | undefined): void => {
    for (const other of found ?? []) if (other !== module && isPending(other)) holders.add(other);
  };
  for (const resource of resources) {
    const { id } = resource;
    if (id.namespace) add(index.namespaces.get(id.namespace));
    add(index.crds.get(`${id.group}/${id.kind}`));
  }
  // In the render's module order, as the slices are.
  return [...holders].sort((a, b) => (index.order.get(a) ?? 0) - (index.order.get(b) ?? 0));
}

interface PrerequisiteIndex {
  /** Namespace name → the modules whose slices hold that Namespace. */
  readonly namespaces: ReadonlyMap<string, readonly string[]>;
  /** `group/kind` → the modules whose slices hold a CustomResourceDefinition of it. */
  readonly crds: ReadonlyMap<string, readonly string[]>;
  readonly order: ReadonlyMap<string, number>;
}

const prerequisiteIndexes = new WeakMap<ReadonlyMap<string, readonly Resource[]>, PrerequisiteIndex>();

function prerequisiteIndex(slices: ReadonlyMap<string, readonly Resource[]>): PrerequisiteIndex {
  const known = prerequisiteIndexes.get(slices);
  if (known !== undefined) return known;
  const namespaces = new Map<string, string[]>();
  const crds = new Map<string, string[]>();
  const order = new Map<string, number>();
  const note = (map: Map<string, string[]>, key: string, module: string): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [module]);
    else if (!list.includes(module)) list.push(module);
  };
  for (const [module, resources] of slices) {
    order.set(module, order.size);
    for (const resource of resources) {
      const { id } = resource;
      if (id.kind === 'Namespace' && id.group === '') note(namespaces, id.name, module);
      if (id.kind !== 'CustomResourceDefinition') continue;
      const spec = isJsonObject(resource.obj.spec) ? resource.obj.spec : {};
      const names = isJsonObject(spec.names) ? spec.names : {};
      if (typeof spec.group === 'string' && typeof names.kind === 'string')
        note(crds, `${spec.group}/${names.kind}`, module);
    }
  }
  const index = { namespaces, crds, order };
  prerequisiteIndexes.set(slices, index);
  return index;
}
