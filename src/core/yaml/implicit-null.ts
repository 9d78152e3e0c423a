/**
 * Which null fields of a map were written with no value at all (`key:`), as opposed to an explicit
 * `null` or `~`. JSON cannot tell them apart, but kustomize can: a strategic merge walking an
 * object drops its no-value fields and keeps its explicit nulls (docs/architecture.md "YAML",
 * "Fields"). The YAML readers mark them; deepClone carries the marks to copies.
 */
const implicitNulls = new WeakMap<object, Set<string>>();

export function markImplicitNull(map: object, key: string): void {
  const keys = implicitNulls.get(map);
  if (keys === undefined) implicitNulls.set(map, new Set([key]));
  else keys.add(key);
}

/** True when `key` of `map` was read from a field written with no value (its value may have changed since). */
export function isImplicitNull(map: object, key: string): boolean {
  return implicitNulls.get(map)?.has(key) === true;
}

/** Gives `copy` the marks of `original`. */
export function copyImplicitNulls(original: object, copy: object): void {
  const keys = implicitNulls.get(original);
  if (keys !== undefined) implicitNulls.set(copy, new Set(keys));
}
