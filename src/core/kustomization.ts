import type { JsonObject } from './json.ts';

/**
 * A field spec: where in objects of a kind a transformer reads or writes (kustomize's
 * api/konfig/builtinpluginconsts).
 */
export interface FieldSpec {
  group?: string;
  version?: string;
  kind?: string;
  path: string;
  create?: boolean;
}

/** A `patches` target, or a `replacements` select/reject: regexes plus Kubernetes selectors. */
export interface Selector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

export interface PatchEntry {
  path?: string;
  patch?: string;
  target?: Selector;
  options?: { allowNameChange?: boolean; allowKindChange?: boolean };
}

export interface Json6902PatchEntry {
  target: Selector & { name: string };
  path?: string;
  patch?: string;
}

export interface GeneratorOptions {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  disableNameSuffixHash?: boolean;
  immutable?: boolean;
}

export interface GeneratorArgs {
  name?: string;
  namespace?: string;
  behavior?: string;
  literals?: string[];
  files?: string[];
  envs?: string[];
  env?: string;
  options?: GeneratorOptions;
}

export interface SecretArgs extends GeneratorArgs {
  type?: string;
}

export interface LabelEntry {
  pairs?: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
  fields?: FieldSpec[];
}

export interface ImageEntry {
  name?: string;
  newName?: string;
  newTag?: string;
  digest?: string;
  tagSuffix?: string;
}

export interface ReplicaEntry {
  name?: string;
  count?: number;
}

export interface VarEntry {
  name: string;
  objref: {
    apiVersion?: string;
    group?: string;
    version?: string;
    kind?: string;
    name?: string;
    namespace?: string;
  };
  fieldref?: { fieldPath?: string };
}

export interface ReplacementSource {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  fieldPath?: string;
  options?: ReplacementOptions;
}

export interface ReplacementOptions {
  delimiter?: string;
  index?: number;
  create?: boolean;
}

export interface ReplacementTarget {
  select?: Selector;
  reject?: Selector[];
  fieldPaths?: string[];
  options?: ReplacementOptions;
}

export interface Replacement {
  source?: ReplacementSource;
  sourceValue?: string;
  targets?: ReplacementTarget[];
}

/** A `replacements` entry: inline, or a file holding one or more replacements. */
export type ReplacementEntry = Replacement & { path?: string };

export interface SortOptions {
  order?: 'legacy' | 'fifo';
  legacySortOptions?: { orderFirst?: string[]; orderLast?: string[] };
}

/** A components entry of a module: a path or a shared component's name, applied when `when` holds. */
export interface ComponentEntry {
  path?: string;
  shared?: string;
  when?: string;
}

/** The fields of a kustomization file that kustomize v5.5.0 accepts. */
export interface Kustomization {
  apiVersion?: string;
  kind?: string;
  metadata?: JsonObject;
  openapi?: JsonObject;
  namePrefix?: string;
  nameSuffix?: string;
  namespace?: string;
  commonLabels?: Record<string, string>;
  labels?: LabelEntry[];
  commonAnnotations?: Record<string, string>;
  patchesStrategicMerge?: string[];
  patchesJson6902?: Json6902PatchEntry[];
  patches?: PatchEntry[];
  images?: ImageEntry[];
  imageTags?: ImageEntry[];
  replacements?: ReplacementEntry[];
  replicas?: ReplicaEntry[];
  vars?: VarEntry[];
  sortOptions?: SortOptions;
  resources?: string[];
  /** Paths; in a modules tree also `{path | shared, when}` entries (docs/modules.md). */
  components?: (string | ComponentEntry)[];
  crds?: string[];
  bases?: string[];
  configMapGenerator?: GeneratorArgs[];
  secretGenerator?: SecretArgs[];
  helmGlobals?: JsonObject;
  helmCharts?: JsonObject[];
  helmChartInflationGenerator?: JsonObject[];
  generatorOptions?: GeneratorOptions;
  configurations?: string[];
  generators?: string[];
  transformers?: string[];
  validators?: string[];
  buildMetadata?: string[];
}

/**
 * Every top-level field name kustomize accepts; anything else is an error (kustomize's
 * api/internal/target/kusttarget.go).
 */
export const KUSTOMIZATION_FIELDS: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'openapi',
  'namePrefix',
  'nameSuffix',
  'namespace',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'patchesStrategicMerge',
  'patchesJson6902',
  'patches',
  'images',
  'imageTags',
  'replacements',
  'replicas',
  'vars',
  'sortOptions',
  'resources',
  'components',
  'crds',
  'bases',
  'configMapGenerator',
  'secretGenerator',
  'helmGlobals',
  'helmCharts',
  'helmChartInflationGenerator',
  'generatorOptions',
  'configurations',
  'generators',
  'transformers',
  'validators',
  'buildMetadata',
]);

export type KustomizationKind = 'Kustomization' | 'Component';

/** Objects read from one resource file, in file order. */
interface FileEntry {
  readonly type: 'file';
  /** The entry as written in the kustomization. */
  readonly entry: string;
  /** The file's path as shown to users. */
  readonly path: string;
  readonly objects: readonly LoadedObject[];
}

interface DirectoryEntry {
  readonly type: 'directory';
  readonly entry: string;
  readonly node: KustomizationNode;
}

export type ResourceEntry = FileEntry | DirectoryEntry;

/** One parsed object with the place it was read from. */
export interface LoadedObject {
  readonly obj: JsonObject;
  /** `path` or `path#index` of the document in its file, for messages. */
  readonly source: string;
}

/**
 * One kustomization directory with everything it references already read from disk: the pipeline
 * builds it without I/O. `files` holds every referenced file by the path written in the
 * kustomization (patches, generator sources, configurations, replacements).
 */
export interface KustomizationNode {
  /** The directory as shown to users. */
  readonly dir: string;
  /** The kustomization file as shown to users. */
  readonly file: string;
  readonly kind: KustomizationKind;
  readonly spec: Kustomization;
  readonly resources: readonly ResourceEntry[];
  readonly components: readonly KustomizationNode[];
  readonly generators: readonly ResourceEntry[];
  readonly transformers: readonly ResourceEntry[];
  readonly validators: readonly ResourceEntry[];
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Display paths of `files`, for messages. */
  readonly filePaths: ReadonlyMap<string, string>;
}
