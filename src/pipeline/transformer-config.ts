import { KustomizeError } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import { kindPriority } from '../core/kind-order.ts';
import type { FieldSpec } from '../core/kustomization.ts';
import * as builtin from './default-field-specs.ts';

/** A `nameReference` entry: objects of this GVK (the referral) are named by these fields of others. */
export interface NameBackReference {
  group?: string;
  version?: string;
  kind: string;
  fieldSpecs: FieldSpec[];
}

/**
 * The field specs the builtin transformers use (kustomize's api/konfig/builtinpluginconsts): the builtin
 * tables plus every `configurations:` file seen so far. `labels` holds field specs kustomize adds to every
 * `labels:` entry of a kustomization.
 */
export interface TransformerConfig {
  namePrefix: FieldSpec[];
  nameSuffix: FieldSpec[];
  namespace: FieldSpec[];
  commonLabels: FieldSpec[];
  labels: FieldSpec[];
  templateLabels: FieldSpec[];
  commonAnnotations: FieldSpec[];
  images: FieldSpec[];
  replicas: FieldSpec[];
  varReference: FieldSpec[];
  nameReference: NameBackReference[];
}

type FieldSpecList = Exclude<keyof TransformerConfig, 'nameReference'>;

const FIELD_SPEC_LISTS = [
  'namePrefix',
  'nameSuffix',
  'namespace',
  'commonLabels',
  'labels',
  'templateLabels',
  'commonAnnotations',
  'images',
  'replicas',
  'varReference',
] as const satisfies readonly FieldSpecList[];

const CONFIG_KEYS: readonly (keyof TransformerConfig)[] = [...FIELD_SPEC_LISTS, 'nameReference'];

function emptyTransformerConfig(): TransformerConfig {
  return {
    namePrefix: [],
    nameSuffix: [],
    namespace: [],
    commonLabels: [],
    labels: [],
    templateLabels: [],
    commonAnnotations: [],
    images: [],
    replicas: [],
    varReference: [],
    nameReference: [],
  };
}

let builtinConfig: TransformerConfig | undefined;

/**
 * The builtin configuration every accumulator starts from, merged once and shared: frozen, since
 * configurations are replaced by merging, never edited.
 */
export function builtinTransformerConfig(): TransformerConfig {
  builtinConfig ??= deepFreeze(mergeBuiltinTables());
  return builtinConfig;
}

function mergeBuiltinTables(): TransformerConfig {
  const tables: TransformerConfig = {
    namePrefix: [...builtin.NAME_PREFIX_FIELD_SPECS],
    nameSuffix: [...builtin.NAME_SUFFIX_FIELD_SPECS],
    namespace: [...builtin.NAMESPACE_FIELD_SPECS],
    commonLabels: [...builtin.COMMON_LABELS_FIELD_SPECS],
    labels: [],
    templateLabels: [...builtin.TEMPLATE_LABELS_FIELD_SPECS],
    commonAnnotations: [...builtin.COMMON_ANNOTATIONS_FIELD_SPECS],
    images: [...builtin.IMAGES_FIELD_SPECS],
    replicas: [...builtin.REPLICAS_FIELD_SPECS],
    varReference: [...builtin.VAR_REFERENCE_FIELD_SPECS],
    nameReference: builtin.NAME_REFERENCE_TABLE.map((entry) => ({
      ...entry,
      fieldSpecs: [...entry.fieldSpecs],
    })),
  };
  return mergeTransformerConfigs(emptyTransformerConfig(), tables, 'builtin field specs');
}

/**
 * `b` merged into `merged`, a configuration that is already the result of a merge (an
 * accumulator's always is). Merging such a configuration into itself reproduces it, so a
 * kustomization still on the shared builtin configuration adds nothing to another one on it.
 */
export function absorbTransformerConfig(merged: TransformerConfig, b: TransformerConfig): TransformerConfig {
  return b === merged ? merged : mergeTransformerConfigs(merged, b);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * `b` merged into `a` as kustomize's TransformerConfig.Merge and the accumulator's own merge leave
 * it: each list in kustomize's GVK order, then deduplicated in that order. A field spec is dropped
 * when an earlier one has its path and a GVK the later one selects (so `kind: Service, path:
 * metadata/labels` hides the kind-less spec for that path, as kubectl kustomize shows); two that
 * differ only in `create` are an error. Back-references are merged per referral GVK. `file` names
 * the configuration `b` came from, for messages.
 */
export function mergeTransformerConfigs(
  a: TransformerConfig,
  b: TransformerConfig,
  file = 'configurations',
): TransformerConfig {
  const merged = emptyTransformerConfig();
  for (const key of FIELD_SPEC_LISTS) {
    merged[key] = mergeFieldSpecs([], sortByGvk([...a[key], ...b[key]]), key, file);
  }
  merged.nameReference = mergeBackReferences(sortByGvk([...a.nameReference, ...b.nameReference]), file);
  return merged;
}

function mergeFieldSpecs(
  into: FieldSpec[],
  incoming: readonly FieldSpec[],
  key: string,
  file: string,
): FieldSpec[] {
  const result = [...into];
  for (const spec of incoming) {
    const existing = result.find((other) => other.path === spec.path && isGvkSelectedBy(other, spec));
    if (!existing) {
      result.push({ ...spec });
    } else if ((existing.create ?? false) !== (spec.create ?? false)) {
      throw new KustomizeError(
        'field-spec-invalid',
        file,
        `${key} field spec ${describeSpec(spec)} conflicts with ${describeSpec(existing)}: they differ only in 'create'`,
        'Give both the same create value, or remove one of them.',
      );
    }
  }
  return result;
}

/** nbrSlice.mergeOne: a new referral GVK is taken as it is, a known one absorbs the field specs. */
function mergeBackReferences(backRefs: readonly NameBackReference[], file: string): NameBackReference[] {
  const result: NameBackReference[] = [];
  for (const backRef of backRefs) {
    const same = result.find(
      (other) =>
        (other.group ?? '') === (backRef.group ?? '') &&
        (other.version ?? '') === (backRef.version ?? '') &&
        other.kind === backRef.kind,
    );
    if (same) {
      const where = `nameReference ${backRef.kind}`;
      same.fieldSpecs = mergeFieldSpecs(same.fieldSpecs, backRef.fieldSpecs, where, file);
    } else {
      result.push({ ...backRef, fieldSpecs: backRef.fieldSpecs.map((spec) => ({ ...spec })) });
    }
  }
  return result;
}

/** kyaml's Gvk.IsSelected: empty group, version or kind in the selector match anything. */
function isGvkSelectedBy(gvk: GvkFields, selector: GvkFields): boolean {
  return (
    (!selector.group || selector.group === gvk.group) &&
    (!selector.version || selector.version === gvk.version) &&
    (!selector.kind || selector.kind === gvk.kind)
  );
}

interface GvkFields {
  readonly group?: string;
  readonly version?: string;
  readonly kind?: string;
}

/** Gvk.legacySortString, the tie-break of Gvk.IsLessThan. */
function legacySortString(gvk: GvkFields): string {
  return [gvk.group || '~G', gvk.version || '~V', gvk.kind || '~K'].join('_');
}

/** TransformerConfig.sortFields: by kind priority, then legacy GVK string (a stable sort). */
function sortByGvk<T extends GvkFields>(items: T[]): T[] {
  return items.sort((x, y) => {
    const byKind = kindPriority(x.kind ?? '') - kindPriority(y.kind ?? '');
    if (byKind !== 0) return byKind;
    const [sx, sy] = [legacySortString(x), legacySortString(y)];
    return sx < sy ? -1 : sx > sy ? 1 : 0;
  });
}

function describeSpec(spec: FieldSpec): string {
  const gvk = [spec.group, spec.version, spec.kind].filter(Boolean).join('/') || 'any kind';
  return `'${spec.path}' (${gvk}, create: ${spec.create ?? false})`;
}

/**
 * A `configurations:` file (already parsed YAML) as a configuration, merged within itself as
 * kustomize does. Keys match case-insensitively like Go's encoding/json; unknown keys and values of
 * the wrong shape are errors, as with kustomize's strict unmarshalling.
 */
export function parseTransformerConfig(doc: unknown, file: string): TransformerConfig {
  const config = emptyTransformerConfig();
  if (doc === null || doc === undefined) return config;
  if (!isJsonObject(doc)) throw invalid(file, 'the file must hold a map of field-spec lists');
  for (const [rawKey, value] of Object.entries(doc)) {
    const key = CONFIG_KEYS.find((known) => known.toLowerCase() === rawKey.toLowerCase());
    if (key === undefined) throw invalid(file, `unknown field '${rawKey}'`);
    const entries = listAt(value, key, file);
    if (key === 'nameReference') {
      config.nameReference = entries.map((entry, i) => parseBackReference(entry, `${key}[${i}]`, file));
    } else {
      config[key] = entries.map((entry, i) => parseFieldSpec(entry, `${key}[${i}]`, file));
    }
  }
  return mergeTransformerConfigs(emptyTransformerConfig(), config, file);
}

function listAt(value: unknown, where: string, file: string): unknown[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw invalid(file, `'${where}' must be a list`);
  return value;
}

const FIELD_SPEC_KEYS = ['group', 'version', 'kind', 'path', 'create'] as const;
const BACK_REFERENCE_KEYS = ['group', 'version', 'kind', 'fieldSpecs'] as const;

/** The entry's fields by canonical key; null stands for a missing map, as in Go. */
function fieldsOf<K extends string>(
  entry: unknown,
  keys: readonly K[],
  where: string,
  file: string,
): Partial<Record<K, unknown>> {
  if (entry === null) return {};
  if (!isJsonObject(entry)) throw invalid(file, `'${where}' must be a map`);
  const fields: Partial<Record<K, unknown>> = {};
  for (const [rawKey, value] of Object.entries(entry)) {
    const key = keys.find((known) => known.toLowerCase() === rawKey.toLowerCase());
    if (key === undefined) throw invalid(file, `unknown field '${rawKey}' in '${where}'`);
    fields[key] = value;
  }
  return fields;
}

function parseFieldSpec(entry: unknown, where: string, file: string): FieldSpec {
  const fields = fieldsOf(entry, FIELD_SPEC_KEYS, where, file);
  const spec: FieldSpec = {
    ...gvkAt(fields, where, file),
    path: stringAt(fields.path, `${where}.path`, file),
  };
  if (booleanAt(fields.create, `${where}.create`, file)) spec.create = true;
  return spec;
}

function parseBackReference(entry: unknown, where: string, file: string): NameBackReference {
  const fields = fieldsOf(entry, BACK_REFERENCE_KEYS, where, file);
  const specs = listAt(fields.fieldSpecs ?? null, `${where}.fieldSpecs`, file);
  return {
    ...gvkAt(fields, where, file),
    kind: stringAt(fields.kind, `${where}.kind`, file),
    fieldSpecs: specs.map((spec, i) => parseFieldSpec(spec, `${where}.fieldSpecs[${i}]`, file)),
  };
}

function gvkAt(
  fields: { group?: unknown; version?: unknown; kind?: unknown },
  where: string,
  file: string,
): GvkFields {
  const gvk: { group?: string; version?: string; kind?: string } = {};
  for (const key of ['group', 'version', 'kind'] as const) {
    const value = stringAt(fields[key], `${where}.${key}`, file);
    if (value !== '') gvk[key] = value;
  }
  return gvk;
}

/** sigs.k8s.io/yaml turns numbers and booleans into the strings a string field expects. */
function stringAt(value: unknown, where: string, file: string): string {
  if (value === undefined || value === null) return '';
  const isScalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  if (isScalar) return String(value);
  throw invalid(file, `'${where}' must be a string`);
}

/** YAML 1.1 booleans, which kustomize's YAML reader still accepts (`create: yes`). */
const YAML11_BOOLEANS: Readonly<Record<string, boolean>> = Object.fromEntries([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map(
    (word): [string, boolean] => [word, true],
  ),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map(
    (word): [string, boolean] => [word, false],
  ),
]);

function booleanAt(value: unknown, where: string, file: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  const word = typeof value === 'string' ? YAML11_BOOLEANS[value] : undefined;
  if (word === undefined) throw invalid(file, `'${where}' must be true or false`);
  return word;
}

function invalid(file: string, problem: string): KustomizeError {
  return new KustomizeError(
    'field-spec-invalid',
    file,
    `invalid transformer configuration: ${problem}`,
    `A configurations file maps ${CONFIG_KEYS.join(', ')} to lists of field specs {group, version, kind, path, create}; nameReference entries are {group, version, kind, fieldSpecs}.`,
  );
}
