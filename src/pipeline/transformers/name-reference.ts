import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { FieldSpec } from '../../core/kustomization.ts';
import { describeId, effectiveNamespace, formatId, isClusterScoped, type Gvk } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';
import type { NameBackReference } from '../transformer-config.ts';
import {
  isInNamespace,
  isReachable,
  originalId,
  ReferralIndex,
  scopeOf,
  type ReferrerScope,
} from './referral-index.ts';

/** One referrer field being fixed: where it is, what kind of object it names, who may be named. */
interface Reference {
  readonly referrer: Resource;
  readonly spec: FieldSpec;
  readonly referral: NameBackReference;
  readonly scope: ReferrerScope;
  readonly index: ReferralIndex;
  readonly observer: NameLookupObserver | undefined;
}

/**
 * Told what each referrer looked for, whether or not anything had it: the incremental composition
 * (src/pipeline/incremental-composition.ts) learns from it which modules' objects a module's
 * references depend on.
 */
export interface NameLookupObserver {
  /** A referrer's field named `name`: objects that had that name decide what it becomes. */
  readonly lookedUpName: (referrer: Resource, name: string) => void;
  /** A referrer asked whether it reaches objects originally in `namespace`. */
  readonly queriedNamespace: (referrer: Resource, namespace: string) => void;
}

/**
 * kustomize's final name-reference pass (kustomize's api/filters/nameref; api/internal/accumulator/
 * namereferencetransformer.go, api/filters/nameref): every field a back-reference names in an
 * object whose original GVK its field spec selects is rewritten to the current name (and, in maps,
 * namespace) of the one object that had that name before.
 */
export function fixNameReferences(
  resources: readonly Resource[],
  nameReference: readonly NameBackReference[],
  observer?: NameLookupObserver,
): void {
  const index = new ReferralIndex(resources);
  const specsFor = specsByGvk(nameReference);
  for (const referrer of resources) {
    const idBefore = referrer.id;
    fixReferrer(referrer, specsFor(originalId(referrer)), index, observer);
    // The same object while its identity fields are unchanged (Resource.id).
    if (referrer.id !== idBefore) index.refresh();
  }
}

/** specsSelecting, remembered per GVK: most referrers share theirs with many others. */
function specsByGvk(nameReference: readonly NameBackReference[]): (gvk: Gvk) => readonly ReferenceSpec[] {
  const remembered = new Map<string, readonly ReferenceSpec[]>();
  return (gvk) => {
    const key = `${gvk.group}\u0000${gvk.version}\u0000${gvk.kind}`;
    let specs = remembered.get(key);
    if (specs === undefined) {
      specs = specsSelecting(gvk, nameReference);
      remembered.set(key, specs);
    }
    return specs;
  };
}

/** A back-reference with one of its field specs. */
interface ReferenceSpec {
  readonly referral: NameBackReference;
  readonly spec: FieldSpec;
}

/** The field specs that apply to referrers of one original GVK, in configuration order. */
function specsSelecting(gvk: Gvk, nameReference: readonly NameBackReference[]): ReferenceSpec[] {
  return nameReference.flatMap((referral) =>
    referral.fieldSpecs.filter((spec) => isFieldSpecFor(spec, gvk)).map((spec) => ({ referral, spec })),
  );
}

function fixReferrer(
  referrer: Resource,
  specs: readonly ReferenceSpec[],
  index: ReferralIndex,
  observer: NameLookupObserver | undefined,
): void {
  let scope: ReferrerScope | undefined;
  for (const { referral, spec } of specs) {
    scope ??= scopeOf(referrer);
    const reference: Reference = { referrer, spec, referral, scope, index, observer };
    visitFieldPath(referrer.obj, spec.path, false, (value, set) => {
      fixField(reference, value, set);
    });
  }
}

/** A field holds a name, a map with name (and namespace), or a list of either (nameref.go `set`). */
function fixField(reference: Reference, value: JsonValue | undefined, set: (value: JsonValue) => void): void {
  if (value === undefined || value === null) return;
  if (isJsonObject(value)) {
    fixMap(reference, value);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (Array.isArray(item)) {
        throw badField(reference, 'holds a list inside a list; expected names or maps with a name');
      }
      fixField(reference, item, (next) => {
        value[i] = next;
      });
    });
  } else {
    const oldName = String(value);
    const target = selectReferral(reference, oldName, () => true, haveSameNames);
    if (target && target.name !== oldName) set(target.name);
  }
}

function fixMap(reference: Reference, map: JsonObject): void {
  if (!('name' in map)) throw badField(reference, "holds a map without a 'name' field");
  const oldName = scalarText(map.name);
  const isInPool = 'namespace' in map ? inNamespace(reference, scalarText(map.namespace)) : () => true;
  const target = selectReferral(reference, oldName, isInPool, haveSameNamesAndNamespaces);
  if (!target || (target.name === oldName && target.namespace === '')) return;
  map.name = target.name;
  // An empty namespace is a wildcard here, not `default`: leave the field as written.
  if (target.namespace !== '') map.namespace = target.namespace;
}

/**
 * filterMapCandidatesByNamespace: by original namespace when any object the referrer reaches was
 * originally in it, else by current namespace.
 */
function inNamespace(reference: Reference, namespace: string): (candidate: Resource) => boolean {
  reference.observer?.queriedNamespace(reference.referrer, namespace);
  return reference.index.reachesOriginalNamespace(reference.scope, namespace)
    ? (candidate) => isInNamespace(originalId(candidate), namespace)
    : (candidate) => isInNamespace(candidate.id, namespace);
}

/** nameref.go selectReferral: narrow the candidates down to one, or to copies that agree. */
function selectReferral(
  reference: Reference,
  oldName: string,
  isInPool: (candidate: Resource) => boolean,
  areIdentical: (found: readonly Resource[]) => boolean,
): Resource | undefined {
  reference.observer?.lookedUpName(reference.referrer, oldName);
  let found = reference.index
    .withPreviousName(oldName)
    .filter(
      (r) =>
        isReachable(reference.scope, r) &&
        isInPool(r) &&
        previousGvks(r).some((gvk) => isSelectedBy(gvk, reference.referral)) &&
        matchesRoleRef(reference, r) &&
        isInReferrerNamespace(reference.referrer, r),
    );
  if (found.length === 1) return found[0];
  found = found.filter((r) => haveSameAffixes(r, reference.referrer, true));
  if (found.length > 1) found = found.filter((r) => haveSameAffixes(r, reference.referrer, false));
  if (found.length <= 1 || areIdentical(found)) return found[0];
  throw new KustomizeError(
    'name-reference-ambiguous',
    reference.referrer.source,
    `${describeId(reference.referrer.id)}: '${reference.spec.path}' names ${reference.referral.kind} '${oldName}', a name several objects had: ${found.map((r) => formatId(r.id)).join(', ')}`,
    'Give those objects distinct names, or build each copy under its own namePrefix or nameSuffix together with the objects referring to it.',
  );
}

/**
 * The ids an object had, as kustomize rebuilds them from its build annotations: only names,
 * namespaces and kinds are recorded, so every previous id carries the current group and version.
 */
function previousGvks(resource: Resource): Gvk[] {
  const { group, version } = resource.id;
  return resource.previousIds.map((id) => ({ group, version, kind: id.kind }));
}

/** kyaml Gvk.IsSelected: the selector's empty group, version or kind match anything. */
function isSelectedBy(gvk: Gvk, selector: { group?: string; version?: string; kind?: string }): boolean {
  return (
    (!selector.group || selector.group === gvk.group) &&
    (!selector.version || selector.version === gvk.version) &&
    (!selector.kind || selector.kind === gvk.kind)
  );
}

/** For a `roleRef/name` field, only objects whose kind and group the roleRef states. */
function matchesRoleRef(reference: Reference, candidate: Resource): boolean {
  if (!reference.spec.path.endsWith('roleRef/name')) return true;
  const roleRef = reference.referrer.obj.roleRef;
  if (!isJsonObject(roleRef) || !('apiGroup' in roleRef) || !('kind' in roleRef)) return true;
  const selector = { group: scalarText(roleRef.apiGroup), kind: scalarText(roleRef.kind) };
  return previousGvks(candidate).some((gvk) => isSelectedBy(gvk, selector));
}

/**
 * sameCurrentNamespaceAsReferrer: a namespaced referrer names cluster-scoped objects,
 * ServiceAccounts (a RoleBinding may bind one from elsewhere) or objects of its own namespace.
 */
function isInReferrerNamespace(referrer: Resource, candidate: Resource): boolean {
  return (
    isClusterScoped(referrer.id) ||
    isClusterScoped(candidate.id) ||
    candidate.kind === 'ServiceAccount' ||
    effectiveNamespace(referrer.id) === effectiveNamespace(candidate.id)
  );
}

/**
 * Resource.PrefixesSuffixesEquals: recorded prefixes (and suffixes) end the same way; with
 * `allowEmpty`, an object without any matches everything.
 */
function haveSameAffixes(candidate: Resource, referrer: Resource, allowEmpty: boolean): boolean {
  const agree = (a: readonly string[], b: readonly string[]): boolean =>
    (allowEmpty && (a.length === 0 || b.length === 0)) || haveSameEnding(a, b);
  return (
    agree(candidate.namePrefixes, referrer.namePrefixes) &&
    agree(candidate.nameSuffixes, referrer.nameSuffixes)
  );
}

/** utils.SameEndingSubSlice: the shorter list is the tail of the longer; empty only matches empty. */
function haveSameEnding(a: readonly string[], b: readonly string[]): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length === 0) return long.length === 0;
  const offset = long.length - short.length;
  return short.every((item, i) => long[i + offset] === item);
}

function haveSameNames(found: readonly Resource[]): boolean {
  return found.every((r) => r.name === found[0]?.name);
}

function haveSameNamesAndNamespaces(found: readonly Resource[]): boolean {
  return found.every((r) => r.name === found[0]?.name && r.namespace === found[0].namespace);
}

/** The text of a YAML scalar as kustomize compares it; null and non-scalars read as empty. */
function scalarText(value: JsonValue | undefined): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';
}

function badField(reference: Reference, problem: string): KustomizeError {
  return new KustomizeError(
    'field-spec-invalid',
    reference.referrer.source,
    `${describeId(reference.referrer.id)}: name reference field '${reference.spec.path}' ${problem}`,
    "Point the nameReference field spec at the name itself, or at a map holding 'name' (and 'namespace').",
  );
}
