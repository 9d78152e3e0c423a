import { existsSync } from 'node:fs';
import path from 'node:path';
import { KustomizeError } from '../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { KUSTOMIZATION_FIELDS, type Kustomization, type KustomizationKind } from '../core/kustomization.ts';
import { parseYamlDocument, type YamlExpansion } from '../core/yaml/yaml.ts';
import { decodeUtf8, readRegularFile } from './input-file.ts';

/** A kustomization file is a page of fields: larger ones are not read for their kind. */
const MAX_KUSTOMIZATION_FILE_BYTES = 8 * 1024 * 1024;

export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

const API_VERSION_BY_KIND: Record<KustomizationKind, string> = {
  Kustomization: 'kustomize.config.k8s.io/v1beta1',
  Component: 'kustomize.config.k8s.io/v1alpha1',
};

const DEPRECATED_FIELDS: Record<string, string> = {
  bases: 'resources',
  commonLabels: 'labels',
  imageTags: 'images',
  patchesJson6902: 'patches',
  patchesStrategicMerge: 'patches',
  vars: 'replacements',
};

type FieldShape = 'string' | 'list' | 'map' | 'stringList' | 'stringMap' | 'componentList';

/** The JSON shape each field must have; kustomize's strict decode refuses anything else. */
const FIELD_SHAPES: Record<string, FieldShape> = {
  apiVersion: 'string',
  kind: 'string',
  metadata: 'map',
  openapi: 'map',
  namePrefix: 'string',
  nameSuffix: 'string',
  namespace: 'string',
  commonLabels: 'stringMap',
  labels: 'list',
  commonAnnotations: 'stringMap',
  patchesStrategicMerge: 'stringList',
  patchesJson6902: 'list',
  patches: 'list',
  images: 'list',
  imageTags: 'list',
  replacements: 'list',
  replicas: 'list',
  vars: 'list',
  sortOptions: 'map',
  resources: 'stringList',
  components: 'stringList',
  crds: 'stringList',
  bases: 'stringList',
  configMapGenerator: 'list',
  secretGenerator: 'list',
  helmGlobals: 'map',
  helmCharts: 'list',
  helmChartInflationGenerator: 'list',
  generatorOptions: 'map',
  configurations: 'stringList',
  generators: 'stringList',
  transformers: 'stringList',
  validators: 'stringList',
  buildMetadata: 'stringList',
};

export interface KustomizationFile {
  readonly kind: KustomizationKind;
  readonly spec: Kustomization;
  readonly warnings: readonly string[];
}

/**
 * Parses and checks one kustomization file's text as kustomize v5.5.0 does (kustomize's
 * api/internal/target/kusttarget.go): unknown fields and wrong kinds are errors, legacy fields are folded
 * into their successors with a warning.
 */
export interface ParseOptions {
  /** Expands `$(var)` references while parsing (a module's kustomization). */
  readonly expansion?: YamlExpansion;
  /** Accepts `{path | shared, when}` components entries (a module's kustomization). */
  readonly componentEntries?: boolean;
}

export function parseKustomizationFile(
  text: string,
  file: string,
  options: ParseOptions = {},
): KustomizationFile {
  const doc = parseYamlDocument(text, file, options.expansion, { duplicateKeys: 'last-wins' }) ?? {};
  if (!isJsonObject(doc)) {
    throw invalid(file, 'the file is not a YAML map', 'Write the kustomization as a map of fields.');
  }
  foldFieldNameCase(doc);
  checkFields(doc, file, options.componentEntries ?? false);
  checkSupported(doc, file);
  const kind = checkKind(doc, file);
  const warnings = Object.keys(DEPRECATED_FIELDS)
    .filter((field) => field in doc)
    .map(
      (field) =>
        `# Warning: '${field}' is deprecated. Please use '${DEPRECATED_FIELDS[field] ?? ''}' instead. (${file})`,
    );
  const spec = foldLegacyFields(doc);
  return {
    kind,
    spec: { ...spec, kind, apiVersion: spec.apiVersion ?? API_VERSION_BY_KIND[kind] },
    warnings,
  };
}

/** `sortOptions` as kustomize checks it: a known order, and legacy options only with the legacy order. */
function checkSortOptions(options: JsonValue | undefined, file: string): void {
  if (!isJsonObject(options)) return;
  const order = options.order;
  // An order left out is no order: kustomize's SortOrderTransformer defaults only a missing sortOptions.
  if (order !== 'legacy' && order !== 'fifo')
    throw invalid(
      file,
      `the field 'sortOptions.order' must be one of [fifo, legacy], not ${JSON.stringify(order ?? null)}`,
      'Set it to legacy or fifo.',
    );
  if (order === 'fifo' && options.legacySortOptions !== undefined)
    throw invalid(
      file,
      "sortOptions.legacySortOptions is set but sortOptions.order is 'fifo'",
      'Remove legacySortOptions, or set the order to legacy.',
    );
}

/**
 * kustomize decodes a kustomization with Go's encoding/json, which matches a field name to a struct
 * field regardless of case when no exact match exists: `nameprefix` is `namePrefix`, a var's
 * `fieldRef` its `fieldref`. The same names are renamed here, in place, before anything reads them.
 */
function foldFieldNameCase(doc: JsonObject): void {
  renameKeys(doc, [...KUSTOMIZATION_FIELDS]);
  const vars = Array.isArray(doc.vars) ? doc.vars : [];
  for (const entry of vars) {
    if (!isJsonObject(entry)) continue;
    renameKeys(entry, ['name', 'objref', 'fieldref']);
    if (isJsonObject(entry.objref))
      renameKeys(entry.objref, ['apiVersion', 'group', 'version', 'kind', 'name', 'namespace']);
    if (isJsonObject(entry.fieldref)) renameKeys(entry.fieldref, ['fieldPath']);
  }
}

/** Renames each key that matches one of `names` only without regard to case to that name. */
function renameKeys(map: JsonObject, names: readonly string[]): void {
  for (const key of Object.keys(map)) {
    if (names.includes(key)) continue;
    const name = names.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    if (name === undefined || Object.hasOwn(map, name)) continue;
    const value = map[key];
    Reflect.deleteProperty(map, key);
    if (value !== undefined) map[name] = value;
  }
}

function checkFields(doc: JsonObject, file: string, componentEntries: boolean): void {
  for (const [field, value] of Object.entries(doc)) {
    if (!KUSTOMIZATION_FIELDS.has(field)) {
      throw invalid(
        file,
        `unknown field "${field}"`,
        `Remove it or correct its spelling; kustomize accepts: ${[...KUSTOMIZATION_FIELDS].join(', ')}.`,
      );
    }
    const shape = field === 'components' && componentEntries ? 'componentList' : FIELD_SHAPES[field];
    if (value !== null && shape && !hasShape(value, shape)) {
      throw invalid(
        file,
        `field "${field}" must be ${describeShape(shape)}`,
        `Correct the value of "${field}".`,
      );
    }
  }
  checkSortOptions(doc.sortOptions, file);
  const meaningful = Object.keys(doc).filter((k) => k !== 'apiVersion' && k !== 'kind');
  if (meaningful.length === 0) {
    throw invalid(file, 'kustomization.yaml is empty', 'Add resources, components or transformers to it.');
  }
}

/** Fields kustomize accepts but kaddon does not run: refused, never silently ignored. */
const UNSUPPORTED_FIELDS: Record<string, string> = {
  helmCharts:
    'kaddon renders Helm charts as modules (Chart.yaml and templates/ in a module), not from a kustomization',
  helmChartInflationGenerator:
    'kaddon renders Helm charts as modules (Chart.yaml and templates/ in a module), not from a kustomization',
  helmGlobals:
    'kaddon renders Helm charts as modules (Chart.yaml and templates/ in a module), not from a kustomization',
  validators: 'validators run external plugins, which kaddon does not run',
  crds: 'field specs derived from CRD OpenAPI schemas are not supported; declare them with configurations instead',
};

function checkSupported(doc: JsonObject, file: string): void {
  for (const [field, reason] of Object.entries(UNSUPPORTED_FIELDS)) {
    const value = doc[field];
    const isEmpty =
      value === undefined ||
      value === null ||
      (Array.isArray(value) && value.length === 0) ||
      (isJsonObject(value) && Object.keys(value).length === 0);
    if (!isEmpty) {
      throw new KustomizeError(
        'kustomization-invalid',
        file,
        `field "${field}" is not supported: ${reason}`,
        `Remove "${field}" (see docs/differences-from-kustomize.md).`,
      );
    }
  }
}

function checkKind(doc: JsonObject, file: string): KustomizationKind {
  const kind = doc.kind ?? 'Kustomization';
  if (kind !== 'Kustomization' && kind !== 'Component') {
    throw invalid(
      file,
      'kind should be Kustomization or Component',
      'Set kind to Kustomization or Component.',
    );
  }
  const required = API_VERSION_BY_KIND[kind];
  if (doc.apiVersion !== undefined && doc.apiVersion !== required) {
    throw invalid(file, `apiVersion for ${kind} should be ${required}`, `Set apiVersion: ${required}.`);
  }
  return kind;
}

function foldLegacyFields(spec: Kustomization): Kustomization {
  const out: Kustomization = { ...spec };
  if (spec.bases) out.resources = [...(spec.resources ?? []), ...spec.bases];
  if (spec.imageTags) out.images = [...(spec.images ?? []), ...spec.imageTags];
  delete out.bases;
  delete out.imageTags;
  return out;
}

function hasShape(value: JsonValue, shape: FieldShape): boolean {
  switch (shape) {
    case 'string':
      return typeof value === 'string';
    case 'list':
      return Array.isArray(value);
    case 'map':
      return isJsonObject(value);
    case 'stringList':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'componentList':
      return (
        Array.isArray(value) && value.every((item) => typeof item === 'string' || isComponentEntry(item))
      );
    case 'stringMap':
      return isJsonObject(value) && Object.values(value).every((v) => typeof v !== 'object' || v === null);
  }
}

function describeShape(shape: FieldShape): string {
  const names: Record<FieldShape, string> = {
    string: 'a string',
    list: 'a list',
    map: 'a map',
    stringList: 'a list of strings',
    stringMap: 'a map of strings',
    componentList: 'a list of paths or {path | shared, when} entries',
  };
  return names[shape];
}

function isComponentEntry(value: JsonValue): boolean {
  if (!isJsonObject(value)) return false;
  const keys = Object.keys(value);
  const names = ['path', 'shared'].filter((k) => typeof value[k] === 'string');
  return (
    names.length === 1 &&
    keys.every((k) => k === 'path' || k === 'shared' || k === 'when') &&
    (value.when === undefined || typeof value.when === 'string')
  );
}

function invalid(file: string, problem: string, hint: string): KustomizeError {
  return new KustomizeError('kustomization-invalid', file, problem, hint);
}

/**
 * The kind a kustomization directory declares, read without `$(var)` expansion or validation;
 * undefined when it has no kustomization file or the file is not YAML. Lets a caller tell how far
 * a module that failed to load could have reached (a Component module changes other modules).
 */
export function declaredKustomizationKind(dir: string): KustomizationKind | undefined {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    try {
      // Never blocks on a named pipe: the loader refuses it with its own message later.
      const bytes = readRegularFile(file, file, MAX_KUSTOMIZATION_FILE_BYTES);
      if (bytes === undefined) return undefined;
      const document = parseYamlDocument(decodeUtf8(bytes, file), file, undefined, {
        duplicateKeys: 'last-wins',
      });
      const kind = isJsonObject(document) ? document.kind : undefined;
      if (kind === undefined || kind === 'Kustomization') return 'Kustomization';
      return kind === 'Component' ? 'Component' : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
