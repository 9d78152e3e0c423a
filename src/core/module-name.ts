/**
 * Module names (docs/modules.md): a module directory is
 * `[NNN-]name`; the name is kebab-case and its values key is the camelCase form, which must
 * convert back to the same name.
 */
export interface ModuleDirName {
  readonly name: string;
  /** The numeric prefix, or undefined for an unnumbered directory. */
  readonly order: number | undefined;
}

export function parseModuleDirName(dirName: string): ModuleDirName {
  const match = /^(?:(\d+)-)?(.+)$/.exec(dirName);
  const prefix = match?.[1];
  return { name: match?.[2] ?? dirName, order: prefix === undefined ? undefined : Number(prefix) };
}

/** `l2-load-balancer` → `l2LoadBalancer`, `2-module-name` → `2ModuleName`. */
export function moduleValuesKey(name: string): string {
  return name
    .split('-')
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

/** `l2LoadBalancer` → `l2-load-balancer`. */
export function moduleNameFromValuesKey(key: string): string {
  return key.replace(
    /[A-Z]/g,
    (letter, offset: number) => `${offset === 0 ? '' : '-'}${letter.toLowerCase()}`,
  );
}

/** True when the name is kebab-case and survives the round trip through its values key. */
export function isValidModuleName(name: string): boolean {
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name) && moduleNameFromValuesKey(moduleValuesKey(name)) === name;
}
