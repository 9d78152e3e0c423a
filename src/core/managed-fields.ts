import { deepEqual, isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/**
 * A field set as the API server writes it in `metadata.managedFields[].fieldsV1` (docs/drift.md
 * "Which fields count"): `f:<name>` a map field, `k:<json>` a list item by its key fields,
 * `v:<json>` a set item by value, `i:<n>` a list item by index, `.` the node itself.
 */
export type FieldSet = JsonObject;

/** The fields the manager owns through `operation` (`Apply` for server-side apply), merged over all its entries. */
export function ownedFields(object: JsonObject | undefined, manager: string, operation = 'Apply'): FieldSet {
  const entries = (object?.metadata as JsonObject | undefined)?.managedFields;
  let owned: FieldSet = {};
  if (!Array.isArray(entries)) return owned;
  for (const entry of entries) {
    if (!isJsonObject(entry) || entry.manager !== manager || entry.operation !== operation) continue;
    if (isJsonObject(entry.fieldsV1)) owned = unionFields(owned, entry.fieldsV1);
  }
  return owned;
}

/** Every field in either set. */
export function unionFields(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [key, child] of Object.entries(b)) {
    const mine = out[key];
    out[key] = isJsonObject(mine) && isJsonObject(child) ? unionFields(mine, child) : child;
  }
  return out;
}

/**
 * The part of `value` that `fields` names, in `value`'s own order. A leaf of the set (no
 * children) keeps the whole value, as the server treats an atomic field; a list keeps the items
 * the set names by key, value or index.
 */
export function pruneToFields(value: JsonValue, fields: FieldSet): JsonValue {
  const children = Object.keys(fields).filter((key) => key !== '.');
  if (children.length === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return pruneList(value, fields);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = fields[`f:${key}`];
    if (isJsonObject(child)) out[key] = pruneToFields(value[key] as JsonValue, child);
  }
  return out;
}

function pruneList(items: readonly JsonValue[], fields: FieldSet): JsonValue[] {
  const byKey: [JsonObject, FieldSet][] = [];
  const byValue: JsonValue[] = [];
  const byIndex = new Map<number, FieldSet>();
  for (const [key, child] of Object.entries(fields)) {
    if (!isJsonObject(child)) continue;
    const parsed = parseKey(key);
    if (parsed?.kind === 'k' && isJsonObject(parsed.value)) byKey.push([parsed.value, child]);
    if (parsed?.kind === 'v') byValue.push(parsed.value);
    if (parsed?.kind === 'i' && typeof parsed.value === 'number') byIndex.set(parsed.value, child);
  }
  const out: JsonValue[] = [];
  items.forEach((item, index) => {
    const indexed = byIndex.get(index);
    if (indexed) return void out.push(pruneToFields(item, indexed));
    if (byValue.some((wanted) => deepEqual(wanted, item))) return void out.push(item);
    const keyed = isJsonObject(item) ? byKey.find(([key]) => matchesKey(item, key)) : undefined;
    if (keyed) out.push(pruneToFields(item, keyed[1]));
  });
  return out;
}

function parseKey(key: string): { kind: 'k' | 'v' | 'i'; value: JsonValue } | undefined {
  const kind = key.slice(0, 2);
  if (kind !== 'k:' && kind !== 'v:' && kind !== 'i:') return undefined;
  try {
    return { kind: kind[0] as 'k' | 'v' | 'i', value: JSON.parse(key.slice(2)) as JsonValue };
  } catch {
    return undefined;
  }
}

/** A keyed list item: every key field equal (the server writes numbers as numbers, e.g. a port). */
function matchesKey(item: JsonObject, key: JsonObject): boolean {
  return Object.entries(key).every(([field, wanted]) => deepEqual(item[field], wanted));
}
