import { KaddonError } from '../core/errors.ts';
import { JsonStreamSyntaxError, parseJsonStream } from '../core/json-stream.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { parseYamlDocument, parseYamlDocuments } from '../core/yaml/yaml.ts';

/**
 * Object operations a hook writes to $KUBERNETES_PATCH_PATH (docs/hooks.md "Objects from hooks"): one
 * YAML or JSON document per operation. Parsed and checked here, before any of them is applied.
 */
export type ObjectPatchOperation = CreateOperation | DeleteOperation | PatchOperation;

const CREATE_OPERATIONS = ['Create', 'CreateOrUpdate', 'CreateIfNotExists'] as const;
const DELETE_OPERATIONS = ['Delete', 'DeleteInBackground', 'DeleteNonCascading'] as const;

export interface CreateOperation {
  readonly operation: (typeof CREATE_OPERATIONS)[number];
  readonly object: JsonObject;
  /** Where the object goes, read from its apiVersion, kind and metadata. */
  readonly target: ObjectReference & { readonly apiVersion: string };
  readonly subresource?: string;
}

/** Where an operation on an existing object points. An absent apiVersion means the kind's preferred one. */
export interface ObjectReference {
  readonly apiVersion?: string;
  readonly kind: string;
  /** Empty for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  readonly subresource?: string;
}

export interface DeleteOperation extends ObjectReference {
  readonly operation: (typeof DELETE_OPERATIONS)[number];
}

export type PatchOperation = ObjectReference &
  (
    | { readonly operation: 'JQPatch'; readonly jqFilter: string }
    | {
        readonly operation: 'MergePatch';
        readonly mergePatch: JsonObject;
        readonly ignoreMissingObject: boolean;
      }
    | {
        readonly operation: 'JSONPatch';
        readonly jsonPatch: JsonValue[];
        readonly ignoreMissingObject: boolean;
      }
  );

/** A $KUBERNETES_PATCH_PATH file that cannot be read as operations; the hook run fails. */
export class ObjectPatchError extends KaddonError {
  readonly code = 'object-patch-invalid';
  constructor(hook: string, where: string, problem: string, options?: { cause?: unknown }) {
    super(
      `hook '${hook}': $KUBERNETES_PATCH_PATH ${where}: ${problem}.`,
      'Write one operation per YAML or JSON document, as docs/hooks.md "Objects from hooks" describes.',
      options,
    );
  }
}

const FIELDS: Readonly<Record<ObjectPatchOperation['operation'], readonly string[]>> = {
  Create: ['object'],
  CreateOrUpdate: ['object'],
  CreateIfNotExists: ['object'],
  Delete: ['apiVersion', 'kind', 'namespace', 'name'],
  DeleteInBackground: ['apiVersion', 'kind', 'namespace', 'name'],
  DeleteNonCascading: ['apiVersion', 'kind', 'namespace', 'name'],
  JQPatch: ['apiVersion', 'kind', 'namespace', 'name', 'jqFilter'],
  MergePatch: ['apiVersion', 'kind', 'namespace', 'name', 'mergePatch', 'ignoreMissingObject'],
  JSONPatch: ['apiVersion', 'kind', 'namespace', 'name', 'jsonPatch', 'ignoreMissingObject'],
};

/** Every operation of the file, in order; an empty file is none. Throws ObjectPatchError. */
export function parseObjectPatches(text: string, hook: string): ObjectPatchOperation[] {
  if (text.trim() === '') return [];
  return readDocuments(text, hook).map((document, index) =>
    parseOperation(document, hook, `operation #${String(index + 1)}`),
  );
}

/** JSON values one after another (what `jq -c … >> $KUBERNETES_PATCH_PATH` makes), else a YAML stream. */
function readDocuments(text: string, hook: string): JsonValue[] {
  try {
    return [...parseJsonStream(text)];
  } catch (error: unknown) {
    if (!(error instanceof JsonStreamSyntaxError)) throw error;
  }
  try {
    return parseYamlDocuments(text, '$KUBERNETES_PATCH_PATH').map((doc) => doc.value);
  } catch (error: unknown) {
    const problem = error instanceof KaddonError ? error.message : String(error);
    throw new ObjectPatchError(hook, 'content', `neither JSON nor YAML (${problem})`, { cause: error });
  }
}

function parseOperation(document: JsonValue, hook: string, where: string): ObjectPatchOperation {
  const fail = (problem: string): never => {
    throw new ObjectPatchError(hook, where, problem);
  };
  if (!isJsonObject(document)) return fail('is not a mapping');
  const operation = document.operation;
  if (typeof operation !== 'string' || !(operation in FIELDS))
    return fail(`'operation' must be one of ${Object.keys(FIELDS).join(', ')}`);
  const kind = operation as ObjectPatchOperation['operation'];
  const allowed = new Set(['operation', 'subresource', ...FIELDS[kind]]);
  const unknown = Object.keys(document).find((key) => !allowed.has(key));
  if (unknown !== undefined) fail(`'${unknown}' is not a field of ${kind}`);
  const subresource = optionalString(document, 'subresource', fail);
  const extra = subresource === undefined ? {} : { subresource };
  if (isCreate(kind)) {
    const object = createdObject(document.object, fail);
    return { operation: kind, object, target: createTarget(object), ...extra };
  }
  const ref = { ...objectReference(document, fail), ...extra };
  if (isDelete(kind)) return { operation: kind, ...ref };
  const ignoreMissingObject = document.ignoreMissingObject ?? false;
  if (typeof ignoreMissingObject !== 'boolean') return fail(`'ignoreMissingObject' must be true or false`);
  if (kind === 'JQPatch') {
    const jqFilter = document.jqFilter;
    if (typeof jqFilter !== 'string' || jqFilter.trim() === '')
      return fail(`'jqFilter' must be a jq expression`);
    return { operation: kind, ...ref, jqFilter };
  }
  if (kind === 'MergePatch') {
    const mergePatch = embedded(document.mergePatch, 'mergePatch', fail);
    if (!isJsonObject(mergePatch) || Object.keys(mergePatch).length === 0)
      return fail(`'mergePatch' must be a non-empty mapping (or a string holding one)`);
    return { operation: kind, ...ref, mergePatch, ignoreMissingObject };
  }
  const jsonPatch = embedded(document.jsonPatch, 'jsonPatch', fail);
  if (!Array.isArray(jsonPatch) || jsonPatch.length === 0 || !jsonPatch.every(isJsonObject))
    return fail(`'jsonPatch' must be a non-empty list of RFC 6902 operations (or a string holding one)`);
  return { operation: 'JSONPatch', ...ref, jsonPatch, ignoreMissingObject };
}

function isCreate(kind: string): kind is CreateOperation['operation'] {
  return (CREATE_OPERATIONS as readonly string[]).includes(kind);
}

function isDelete(kind: string): kind is DeleteOperation['operation'] {
  return (DELETE_OPERATIONS as readonly string[]).includes(kind);
}

function createdObject(value: JsonValue | undefined, fail: (problem: string) => never): JsonObject {
  const object = embedded(value, 'object', fail);
  if (!isJsonObject(object)) return fail(`'object' must be a mapping (or a string holding one)`);
  const metadata = object.metadata;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string')
    return fail(`'object' needs apiVersion and kind`);
  if (!isJsonObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '')
    return fail(`'object' needs metadata.name`);
  return object;
}

function createTarget(object: JsonObject): CreateOperation['target'] {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : '',
    kind: typeof object.kind === 'string' ? object.kind : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
  };
}

function objectReference(document: JsonObject, fail: (problem: string) => never): ObjectReference {
  const kind = document.kind;
  const name = document.name;
  if (typeof kind !== 'string' || kind === '') return fail(`'kind' is required`);
  if (typeof name !== 'string' || name === '') return fail(`'name' is required`);
  const apiVersion = optionalString(document, 'apiVersion', fail);
  const namespace = optionalString(document, 'namespace', fail) ?? '';
  return { kind, name, namespace, ...(apiVersion === undefined || apiVersion === '' ? {} : { apiVersion }) };
}

function optionalString(
  document: JsonObject,
  key: string,
  fail: (problem: string) => never,
): string | undefined {
  const value = document[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fail(`'${key}' must be a string`);
  return value;
}

/** A field that may hold its value as a YAML or JSON string, as shell-operator accepts. */
function embedded(value: JsonValue | undefined, key: string, fail: (problem: string) => never): JsonValue {
  if (value === undefined || value === null) return fail(`'${key}' is required`);
  if (typeof value !== 'string') return value;
  let parsed: JsonValue | undefined;
  try {
    parsed = parseYamlDocument(value, `$KUBERNETES_PATCH_PATH ${key}`);
  } catch {
    return fail(`'${key}' is a string that is not YAML or JSON`);
  }
  return parsed ?? fail(`'${key}' is an empty string`);
}
