import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { FieldSpec, VarEntry } from '../../core/kustomization.ts';
import { formatId, gvkOf, isSameGvk, parseApiVersion, type ResId } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { expandVars } from '../../core/var-expansion.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';
import type { DeclaredVar, ResourceAccumulator } from '../resource-accumulator.ts';

/**
 * Binds a kustomization's `vars` to the objects in scope now (kustomize's api/internal/accumulator/refvar.go
 * "Registration").
 */
export function declareVars(ra: ResourceAccumulator, vars: readonly VarEntry[], file: string): void {
  for (const entry of vars) {
    const objref = objrefId(entry);
    const matches = ra.resources.filter((resource) => matchesObjref(resource, objref));
    if (matches.length > 1) {
      throw new KustomizeError(
        'var-invalid',
        file,
        `found ${matches.length} resId matches for var '${entry.name}' (unable to disambiguate): ${matches.map((m) => formatId(m.id)).join(', ')}`,
        'Add the namespace to the var objref.',
      );
    }
    ra.declareVar({
      name: entry.name,
      file,
      objref,
      fieldPath: entry.fieldref?.fieldPath ?? 'metadata.name',
      target: matches[0]?.id,
    });
  }
}

function objrefId(entry: VarEntry): ResId {
  const ref = entry.objref;
  const gv = ref.apiVersion
    ? parseApiVersion(ref.apiVersion)
    : { group: ref.group ?? '', version: ref.version ?? '' };
  return { ...gv, kind: ref.kind ?? '', name: ref.name ?? '', namespace: ref.namespace ?? '' };
}

function matchesObjref(resource: Resource, objref: ResId): boolean {
  const ids = [...resource.previousIds, resource.id];
  return ids.some(
    (id) =>
      isSameGvk(id, objref) &&
      id.name === objref.name &&
      (objref.namespace === '' || id.namespace === objref.namespace),
  );
}

/**
 * Replaces `$(VAR)` in the varReference fields of every object with the final values of the declared vars
 * (kustomize's api/internal/accumulator/refvar.go). Returns the names of vars that were never used.
 */
export function resolveVars(
  resources: readonly Resource[],
  vars: readonly DeclaredVar[],
  fieldSpecs: readonly FieldSpec[],
): string[] {
  const values = new Map(vars.map((declared) => [declared.name, varValue(resources, declared)]));
  const used = new Set<string>();
  const lookup = (name: string): JsonValue | undefined => {
    const value = values.get(name);
    if (value !== undefined) used.add(name);
    return value;
  };
  if (values.size === 0) return [];
  for (const resource of resources) {
    const gvk = gvkOf(resource.obj);
    for (const spec of fieldSpecs) {
      if (!isFieldSpecFor(spec, gvk)) continue;
      // kustomize rewrites the top-level annotation map as strings when it strips its build annotations.
      const asStrings = spec.path === 'metadata/annotations';
      visitFieldPath(resource.obj, spec.path, false, (value, set) => {
        set(expandField(value ?? null, lookup, asStrings, resource, spec.path));
      });
    }
  }
  return [...values.keys()].filter((name) => !used.has(name));
}

function varValue(resources: readonly Resource[], declared: DeclaredVar): JsonValue {
  const target = declared.target;
  const resource = target && resources.find((candidate) => candidate.hasAnyId(target));
  if (!resource) {
    throw new KustomizeError(
      'var-invalid',
      declared.file,
      `var '${declared.name}' cannot be mapped to a field in the set of known resources (objref ${formatId(declared.objref)})`,
      'The objref must name an object added by this kustomization or its resources, with apiVersion, kind and name.',
    );
  }
  const value = readFieldPath(resource.obj, declared.fieldPath);
  if (value === undefined || (value !== null && typeof value === 'object')) {
    throw new KustomizeError(
      'var-invalid',
      declared.file,
      `field specified in var '${declared.name}' not found in corresponding resource: ${declared.fieldPath} in ${formatId(resource.id)}`,
      'Correct fieldref.fieldPath; it must lead to a scalar.',
    );
  }
  return value;
}

/** A var fieldPath: dotted keys with `[i]` list indexes, e.g. `spec.ports[0].port`. */
function readFieldPath(obj: JsonObject, fieldPath: string): JsonValue | undefined {
  let node: JsonValue | undefined = obj;
  for (const part of fieldPath.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) return undefined;
    const [, key = '', indexes = ''] = match;
    if (key !== '') node = isJsonObject(node) ? node[key] : undefined;
    for (const index of indexes.matchAll(/\[(\d+)\]/g)) {
      node = Array.isArray(node) ? node[Number(index[1])] : undefined;
    }
  }
  return node;
}

function expandField(
  value: JsonValue,
  lookup: (name: string) => JsonValue | undefined,
  asStrings: boolean,
  resource: Resource,
  path: string,
): JsonValue {
  const expand = (text: string): JsonValue => {
    const result = expandVars(text, lookup).value;
    return asStrings && typeof result !== 'string' ? JSON.stringify(result) : result;
  };
  if (typeof value === 'string') return expand(value);
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (typeof item !== 'string') {
        throw new KustomizeError(
          'var-invalid',
          resource.source,
          `invalid value type expect a string at ${path} in ${formatId(resource.id)}`,
          'Var references may only appear in lists of strings.',
        );
      }
      return expand(item);
    });
  }
  if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) if (typeof item === 'string') value[key] = expand(item);
  }
  return value;
}
