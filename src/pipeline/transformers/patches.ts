import { KaddonError, KustomizeError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type {
  Json6902PatchEntry,
  KustomizationNode,
  PatchEntry,
  Selector,
} from '../../core/kustomization.ts';
import { describeId, formatId, idOf, type ResId } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { applyJson6902 } from '../json6902.ts';
import type { ResourceAccumulator } from '../resource-accumulator.ts';
import { isSelected } from '../select-resources.ts';
import { strategicMerge } from '../strategic-merge.ts';

/** A patch's text, decided: strategic-merge documents or one list of JSON 6902 operations. */
type ParsedPatch = { type: 'smp'; documents: JsonObject[] } | { type: 'json6902'; operations: JsonValue[] };

/** Where a patch came from, for messages: the file and, for inline patches, the kustomization. */
interface PatchSource {
  readonly file: string;
  readonly text: string;
}

/** `patches:` entries in order (kustomize's api/internal/builtins/PatchTransformer.go). */
export function applyPatches(
  ra: ResourceAccumulator,
  entries: readonly PatchEntry[],
  node: KustomizationNode,
): void {
  for (const entry of entries) {
    const source = patchSource(entry, node);
    const parsed = parsePatch(source);
    if (parsed.type === 'json6902') {
      if (!entry.target) {
        throw new KustomizeError(
          'patch-invalid',
          source.file,
          'must specify a target for JSON patch',
          'Add a target (kind, name, …) to this patches entry: a JSON 6902 patch does not name its object.',
        );
      }
      applyJsonPatchTo(selectTargets(ra, entry.target), parsed.operations, source.file);
      continue;
    }
    if (entry.target) {
      if (parsed.documents.length !== 1) {
        throw new KustomizeError(
          'patch-invalid',
          source.file,
          'Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field',
          'Split the documents into one patches entry each.',
        );
      }
      const [document] = parsed.documents;
      if (document) {
        for (const target of selectTargets(ra, entry.target))
          mergeInto(ra, target, document, entry, source.file);
      }
      continue;
    }
    for (const document of parsed.documents) {
      mergeInto(ra, findPatchTarget(ra, document, source.file, 'patches'), document, entry, source.file);
    }
  }
}

/** The legacy `patchesStrategicMerge:` list: files or inline patches, matched by id. */
export function applyPatchesStrategicMerge(
  ra: ResourceAccumulator,
  entries: readonly string[],
  node: KustomizationNode,
): void {
  const patches = entries.flatMap((entry) => {
    const bytes = node.files.get(entry);
    const source: PatchSource = bytes
      ? { file: node.filePaths.get(entry) ?? entry, text: Buffer.from(bytes).toString('utf8') }
      : { file: node.file, text: entry };
    return parseDocuments(source).map((document) => ({ document, source }));
  });
  // kustomize's PatchStrategicMergeTransformer loads every entry first and refuses a list of nothing.
  if (patches.length === 0 && entries.length > 0) {
    throw new KustomizeError(
      'patch-invalid',
      node.file,
      `patch appears to be empty: patchesStrategicMerge ${entries.join(', ')} hold no objects`,
      'Remove the empty patches, or write the objects they should patch.',
    );
  }
  for (const { document, source } of patches) {
    mergeInto(
      ra,
      findPatchTarget(ra, document, source.file, 'patchesStrategicMerge'),
      document,
      {},
      source.file,
    );
  }
}

/** The legacy `patchesJson6902:` list. */
export function applyPatchesJson6902(
  ra: ResourceAccumulator,
  entries: readonly Json6902PatchEntry[],
  node: KustomizationNode,
): void {
  for (const entry of entries) {
    const source = patchSource(entry, node);
    const parsed = parsePatch(source);
    if (parsed.type !== 'json6902') {
      throw new KustomizeError(
        'patch-invalid',
        source.file,
        'a patchesJson6902 entry must hold a list of JSON patch operations',
        'Write the patch as a list of {op, path, value} operations, or move it to patches.',
      );
    }
    applyJsonPatchTo(selectTargets(ra, entry.target), parsed.operations, source.file);
  }
}

function patchSource(entry: { path?: string; patch?: string }, node: KustomizationNode): PatchSource {
  if (entry.path !== undefined && entry.patch !== undefined) {
    throw new KustomizeError(
      'patch-invalid',
      node.file,
      "patch and path can't be set at the same time",
      'Keep either the inline patch or the path to a patch file.',
    );
  }
  if (entry.path !== undefined) {
    const bytes = node.files.get(entry.path);
    if (!bytes) throw new Error(`loader did not read patch file '${entry.path}' of ${node.file}`);
    return { file: node.filePaths.get(entry.path) ?? entry.path, text: Buffer.from(bytes).toString('utf8') };
  }
  if (entry.patch === undefined) {
    throw new KustomizeError(
      'patch-invalid',
      node.file,
      'must specify one of patch and path in a patches entry',
      'Add the patch inline (patch:) or name a patch file (path:).',
    );
  }
  return { file: node.file, text: entry.patch };
}

function parsePatch(source: PatchSource): ParsedPatch {
  const documents = parseYamlDocuments(source.text, source.file).map((doc) => doc.value);
  const [first] = documents;
  if (documents.length === 1 && Array.isArray(first)) return { type: 'json6902', operations: first };
  return { type: 'smp', documents: parseDocuments(source, documents) };
}

function parseDocuments(source: PatchSource, documents?: JsonValue[]): JsonObject[] {
  const values = documents ?? parseYamlDocuments(source.text, source.file).map((doc) => doc.value);
  return values.map((value) => {
    if (!isJsonObject(value)) {
      throw new KustomizeError(
        'patch-invalid',
        source.file,
        'unable to parse SM or JSON patch: a document is neither an object nor a list of operations',
        'Write a strategic-merge patch (an object with apiVersion, kind and metadata.name) or a JSON 6902 list.',
      );
    }
    return value;
  });
}

function selectTargets(ra: ResourceAccumulator, selector: Selector): Resource[] {
  return ra.resources.filter((resource) => isSelected(resource, selector));
}

/** A strategic-merge patch without target names its object by id, current or any previous. */
function findPatchTarget(ra: ResourceAccumulator, patch: JsonObject, file: string, field: string): Resource {
  const id: ResId = idOf(patch);
  const matches = ra.resources.filter((resource) => resource.hasAnyId(id));
  const [match] = matches;
  if (match === undefined) {
    throw new KustomizeError(
      'patch-target-not-found',
      file,
      `no resource matches strategic merge patch "${formatId(id)}": no matches for Id ${formatId(id)}; failed to find unique target for patch ${formatId(id)} (in ${field})`,
      `Check the patch's apiVersion, kind, name and namespace against ${describeId(id)}, or add that resource before the patch runs.`,
    );
  }
  if (matches.length > 1) {
    throw new KustomizeError(
      'patch-target-not-found',
      file,
      `multiple matches for Id ${formatId(id)}: ${matches.map((m) => formatId(m.id)).join(', ')}`,
      'Give the patch a namespace, or use a target selector.',
    );
  }
  return match;
}

function mergeInto(
  ra: ResourceAccumulator,
  target: Resource,
  patch: JsonObject,
  entry: Pick<PatchEntry, 'options'>,
  file: string,
): void {
  const before = idOf(target.obj);
  const apiVersion = target.obj.apiVersion;
  const merged = wrapPatchError(file, target, () => strategicMerge(target.obj, patch));
  if (merged === null) {
    ra.remove(target);
    return;
  }
  keepIdentity(merged, before, entry.options ?? {});
  // As kustomize gives the patch the target's group, version and kind: a patch written for another
  // kind, applied through a selector, does not change the object's apiVersion.
  if (!entry.options?.allowKindChange && apiVersion !== undefined) merged.apiVersion = apiVersion;
  commit(target, merged, before);
}

function applyJsonPatchTo(
  targets: readonly Resource[],
  operations: readonly JsonValue[],
  file: string,
): void {
  for (const target of targets) {
    const before = idOf(target.obj);
    const patched = wrapPatchError(file, target, () => applyJson6902(target.obj, operations));
    commit(target, patched, before);
  }
}

/** Without allowNameChange / allowKindChange the object keeps its name, namespace and kind. */
function keepIdentity(merged: JsonObject, before: ResId, options: NonNullable<PatchEntry['options']>): void {
  const metadata = isJsonObject(merged.metadata) ? merged.metadata : (merged.metadata = {});
  if (!options.allowNameChange) {
    metadata.name = before.name;
    if (before.namespace === '') delete metadata.namespace;
    else metadata.namespace = before.namespace;
  }
  if (!options.allowKindChange) merged.kind = before.kind;
}

function commit(target: Resource, next: JsonObject, before: ResId): void {
  const after = idOf(next);
  if (after.name !== before.name || after.namespace !== before.namespace || after.kind !== before.kind) {
    target.rememberId();
  }
  target.obj = next;
}

function wrapPatchError<T>(file: string, target: Resource, apply: () => T): T {
  try {
    return apply();
  } catch (error: unknown) {
    if (!(error instanceof KaddonError)) throw error;
    throw new KustomizeError(
      'patch-failed',
      file,
      `patching ${describeId(target.id)}: ${error.message.replace(/\.$/, '')}`,
      error.hint || 'Correct the patch so it applies to the object.',
      { cause: error },
    );
  }
}
