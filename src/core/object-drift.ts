import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from './json.ts';
import { ownedFields, pruneToFields, unionFields, type FieldSet } from './managed-fields.ts';

/** Helm 4 applies a release's objects server-side as this field manager (docs/drift.md). */
export const HELM_FIELD_MANAGER = 'helm';

/** What a server-side apply would change in one object, seen through the fields the release sets. */
export interface ObjectComparison {
  /** The live object cut to the compared fields; undefined when it does not exist. */
  readonly before: JsonObject | undefined;
  /** The object as the apply would leave it, cut the same way. */
  readonly after: JsonObject;
  readonly changed: boolean;
}

export interface CompareOptions {
  /** JSON pointers (RFC 6901) left out of the comparison on both sides; `""` is the whole object. */
  readonly ignorePaths?: readonly string[];
  /** The field manager whose fields are compared; helm's by default. */
  readonly manager?: string;
}

/**
 * Compares a live object with the result of a server-side apply dry run of the desired one (docs/drift.md
 * "Which fields count"): only the fields the manager owns before or after the apply are looked at, so what
 * the server or other controllers fill in (defaults, status, an autoscaler's replicas) is never a
 * difference, while a field the release sets and someone changed or removed is. Secret values are masked.
 */
export function compareApplied(
  live: JsonObject | undefined,
  applied: JsonObject,
  options: CompareOptions = {},
): ObjectComparison {
  const manager = options.manager ?? HELM_FIELD_MANAGER;
  const owned = unionFields(ownedFields(live, manager), ownedFields(applied, manager));
  const fields = isSecret(applied) ? withStringDataAsData(owned) : owned;
  let before = live === undefined ? undefined : comparable(live, fields);
  let after = comparable(applied, fields);
  for (const pointer of options.ignorePaths ?? []) {
    if (pointer === '') return { before: after, after, changed: false };
    if (before) removePointer(before, pointer);
    removePointer(after, pointer);
  }
  const changed = before === undefined || !deepEqual(before, after);
  if (isSecret(applied)) [before, after] = maskSecrets(before, after);
  return { before, after, changed };
}

/** Identity first (apiVersion, kind, name, namespace), then the owned fields. */
function comparable(object: JsonObject, fields: JsonObject): JsonObject {
  const pruned = pruneToFields(object, fields) as JsonObject;
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const prunedMetadata = isJsonObject(pruned.metadata) ? pruned.metadata : {};
  const out: JsonObject = { apiVersion: object.apiVersion ?? null, kind: object.kind ?? null };
  out.metadata = {
    name: metadata.name ?? null,
    ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
    ...prunedMetadata,
  };
  for (const [key, value] of Object.entries(pruned))
    if (key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') out[key] = value;
  return out;
}

/** Removes the field a JSON pointer names, when it is there. */
export function removePointer(object: JsonObject, pointer: string): void {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node: JsonValue | undefined = object;
  for (const token of tokens.slice(0, -1)) node = child(node, token);
  const last = tokens.at(-1);
  if (last === undefined || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    const index = Number(last);
    if (Number.isInteger(index) && index >= 0 && index < node.length) node.splice(index, 1);
  } else Reflect.deleteProperty(node, last);
}

function child(node: JsonValue | undefined, token: string): JsonValue | undefined {
  if (Array.isArray(node)) return node[Number(token)];
  return isJsonObject(node) ? node[token] : undefined;
}

export function isSecret(object: JsonObject): boolean {
  return object.kind === 'Secret' && object.apiVersion === 'v1';
}

/**
 * A Secret's `stringData` is write-only: the API server merges it into `data` and stores no
 * `stringData`, while the apply's managedFields still name `f:stringData` keys (docs/drift.md "Secrets").
 * The keys set through `stringData` are compared where the server keeps them, in `data`.
 */
function withStringDataAsData(fields: FieldSet): FieldSet {
  const stringData = fields['f:stringData'];
  if (!isJsonObject(stringData)) return fields;
  const data = isJsonObject(fields['f:data']) ? fields['f:data'] : {};
  return { ...fields, 'f:data': unionFields(data, stringData) };
}

const MASK = '***';

/** Secret values never leave the comparison: equal ones read `***`, changed ones `*** (before)` / `*** (after)`. */
export function maskSecrets(
  before: JsonObject | undefined,
  after: JsonObject,
): [JsonObject | undefined, JsonObject] {
  const maskedBefore = before === undefined ? undefined : { ...before };
  const maskedAfter = { ...after };
  for (const field of ['data', 'stringData']) {
    const old = isJsonObject(before?.[field]) ? before[field] : undefined;
    const now = isJsonObject(after[field]) ? after[field] : undefined;
    if (old === undefined && now === undefined) continue;
    const oldMasked: JsonObject = {};
    const nowMasked: JsonObject = {};
    for (const key of new Set([...Object.keys(old ?? {}), ...Object.keys(now ?? {})])) {
      const same = old !== undefined && now !== undefined && deepEqual(old[key], now[key]);
      if (old && key in old) oldMasked[key] = same || !(now && key in now) ? MASK : `${MASK} (before)`;
      if (now && key in now) nowMasked[key] = same || !(old && key in old) ? MASK : `${MASK} (after)`;
    }
    if (maskedBefore && old) maskedBefore[field] = oldMasked;
    if (now) maskedAfter[field] = nowMasked;
  }
  return [maskedBefore, maskedAfter];
}

/** The leaf fields that differ between two compared objects, as JSON pointers, at most `limit`. */
export function differingPaths(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  limit = 5,
): string[] {
  const out: string[] = [];
  const walk = (a: JsonValue | undefined, b: JsonValue | undefined, pointer: string): void => {
    if (out.length >= limit || deepEqual(a, b)) return;
    if (isJsonObject(a) && isJsonObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(a[key], b[key], `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      return;
    }
    out.push(pointer || '/');
  };
  walk(before, after, '');
  return out;
}

/**
 * Copies what `source` holds at each JSON pointer into `target` (or removes it from `target` where
 * `source` has none): a correction applies ignored fields as they are live, so it never changes them.
 */
export function keepPointers(target: JsonObject, source: JsonObject, pointers: readonly string[]): void {
  for (const pointer of pointers) {
    if (pointer === '') continue;
    const tokens = pointer
      .split('/')
      .slice(1)
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    let value: JsonValue | undefined = source;
    for (const token of tokens) value = child(value, token);
    if (value === undefined) {
      removePointer(target, pointer);
      continue;
    }
    let node: JsonValue | undefined = target;
    for (const token of tokens.slice(0, -1)) {
      if (!isJsonObject(node)) break;
      if (!isJsonObject(node[token]) && !Array.isArray(node[token])) node[token] = {};
      node = node[token];
    }
    const last = tokens.at(-1);
    if (isJsonObject(node) && last !== undefined) node[last] = value;
  }
}
