import type { KustomizationNode } from '../core/kustomization.ts';
import { effectiveNamespace, idKey, isClusterScoped, type ResId } from '../core/res-id.ts';
import type { Resource } from '../core/resource.ts';
import type { NameLookupObserver } from './transformers/name-reference.ts';

/**
 * What a composition learned of one owner's objects (a module's, or what a Component generated):
 * everything through which another module's objects could depend on them, or they on another's
 * (docs/architecture.md "Incremental composition").
 */
export interface OwnerFacts {
  /** Names its objects' reference fields looked for in the name-reference pass. */
  readonly lookedUp: ReadonlySet<string>;
  /** Namespaces its referrers asked whether they reach objects originally in. */
  readonly queried: ReadonlySet<string>;
  /** Every earlier name of its objects: the names the name-reference pass finds them by. */
  readonly names: ReadonlySet<string>;
  /** Every namespace its namespaced objects were in. */
  readonly namespaces: ReadonlySet<string>;
  /** Every id its objects had, current ones included. */
  readonly ids: ReadonlySet<string>;
  /** Its objects' ids, in order, each with the ids it had before. */
  readonly fingerprint: string;
}

const NO_FACTS: OwnerFacts = {
  lookedUp: new Set(),
  queried: new Set(),
  names: new Set(),
  namespaces: new Set(),
  ids: new Set(),
  fingerprint: '',
};

/** An owner's facts; an owner without objects and without lookups has none. */
export function factsOf(facts: ReadonlyMap<string, OwnerFacts>, owner: string): OwnerFacts {
  return facts.get(owner) ?? NO_FACTS;
}

/** Records the name-reference pass's lookups by the owner of the referrer, then each owner's facts. */
export class FactsRecorder implements NameLookupObserver {
  readonly #lookedUp = new Map<string, Set<string>>();
  readonly #queried = new Map<string, Set<string>>();
  /** Every id of the objects Components removed, by owner. */
  readonly #removedIds = new Map<string, Set<string>>();

  /** The objects of `before` that are not in `after` were removed: their ids stay their owners'. */
  removed(before: readonly Resource[], after: readonly Resource[]): void {
    if (before.length === 0) return;
    const kept = new Set(after);
    for (const resource of before) {
      if (kept.has(resource)) continue;
      for (const id of [...resource.previousIds, resource.id])
        addTo(this.#removedIds, resource.owner ?? '', idKey(id));
    }
  }

  readonly lookedUpName = (referrer: Resource, name: string): void => {
    addTo(this.#lookedUp, referrer.owner ?? '', name);
  };

  readonly queriedNamespace = (referrer: Resource, namespace: string): void => {
    addTo(this.#queried, referrer.owner ?? '', namespace);
  };

  /** Each owner's facts, from every object of the composition (local-config ones too: they are referred to). */
  facts(resources: readonly Resource[]): Map<string, OwnerFacts> {
    const byOwner = new Map<string, Resource[]>();
    for (const resource of resources) {
      const owner = resource.owner ?? '';
      const owned = byOwner.get(owner);
      if (owned) owned.push(resource);
      else byOwner.set(owner, [resource]);
    }
    const owners = new Set([
      ...byOwner.keys(),
      ...this.#lookedUp.keys(),
      ...this.#queried.keys(),
      ...this.#removedIds.keys(),
    ]);
    const facts = new Map<string, OwnerFacts>();
    for (const owner of owners) {
      const owned = byOwner.get(owner) ?? [];
      const names = new Set<string>();
      const namespaces = new Set<string>();
      const ids = new Set<string>(this.#removedIds.get(owner));
      const histories: string[] = [];
      for (const resource of owned) {
        for (const previous of resource.previousIds) names.add(previous.name);
        const history: ResId[] = [...resource.previousIds, resource.id];
        for (const id of history) {
          ids.add(idKey(id));
          if (!isClusterScoped(id)) namespaces.add(effectiveNamespace(id));
        }
        histories.push(history.map(idKey).join('\u0002'));
      }
      facts.set(owner, {
        lookedUp: this.#lookedUp.get(owner) ?? new Set(),
        queried: this.#queried.get(owner) ?? new Set(),
        names,
        namespaces,
        ids,
        fingerprint: histories.join('\u0003'),
      });
    }
    return facts;
  }
}

/**
 * Whether a Component module changes each object by what that object holds alone: nothing of it
 * reads one object to write another (replacements), declares vars, or runs plugins from a
 * directory, whose kinds are only known once built. Patches, labels, annotations, namespaces,
 * prefixes and suffixes, images, replicas and generators qualify; the name-reference pass that
 * follows is tracked by FactsRecorder instead.
 */
export function isLocalComponent(node: KustomizationNode): boolean {
  const spec = node.spec;
  if ((spec.replacements?.length ?? 0) > 0 || (spec.vars?.length ?? 0) > 0) return false;
  if (node.validators.length > 0) return false;
  for (const entry of node.transformers) {
    if (entry.type !== 'file') return false;
    if (entry.objects.some((loaded) => loaded.obj.kind === 'ReplacementTransformer')) return false;
  }
  return node.components.every(isLocalComponent);
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
