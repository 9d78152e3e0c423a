import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/**
 * Moving a field manager's client-side ownership into its server-side apply entry, as helm 4 does
 * when a release last written by client-side apply is upgraded by server-side apply (client-go's
 * csaupgrade; docs/delivery.md "Releases written by client-side apply"). addon-operator's helm 3
 * applies client-side as manager `helm`, which the API server records as an `Update` entry; a
 * server-side apply as `helm` that changes one of those fields would conflict with it.
 */

/** The annotation `kubectl apply` keeps its last configuration in: never owned by the Apply entry. */
const LAST_APPLIED = 'f:kubectl.kubernetes.io/last-applied-configuration';

function isEntry(entry: JsonObject, manager: string, operation: 'Apply' | 'Update'): boolean {
  const subresource = entry.subresource;
  return (
    entry.manager === manager &&
    entry.operation === operation &&
    (subresource === undefined || subresource === '')
  );
}

/** The union of two managed-field sets as the API server encodes them (a trie of `f:`/`k:`/`v:`/`i:` keys). */
function unionFields(left: JsonObject, right: JsonObject): JsonObject {
  const union: JsonObject = { ...left };
  for (const [key, value] of Object.entries(right)) {
    const mine = union[key];
    union[key] = isJsonObject(mine) && isJsonObject(value) ? unionFields(mine, value) : value;
  }
  return union;
}

/** The set without metadata.annotations' last-applied configuration; emptied nodes go too. */
function withoutLastApplied(fields: JsonObject): JsonObject {
  const metadata = fields['f:metadata'];
  if (!isJsonObject(metadata)) return fields;
  const annotations = metadata['f:annotations'];
  if (!isJsonObject(annotations) || !(LAST_APPLIED in annotations)) return fields;
  const keptAnnotations = withoutKey(annotations, LAST_APPLIED);
  const keptMetadata =
    Object.keys(keptAnnotations).length > 0
      ? { ...metadata, 'f:annotations': keptAnnotations }
      : withoutKey(metadata, 'f:annotations');
  return Object.keys(keptMetadata).length > 0
    ? { ...fields, 'f:metadata': keptMetadata }
    : withoutKey(fields, 'f:metadata');
}

function withoutKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
}

function fieldsOf(entry: JsonObject | undefined): JsonObject {
  const fields = entry?.fieldsV1;
  return isJsonObject(fields) ? fields : {};
}

/**
 * `managedFields` with `manager`'s Update entries folded into its Apply entry (the newest Update
 * entry becomes the Apply entry when there is none), or undefined when nothing would change.
 * Only the Update entry of the Apply entry's API version is merged, as client-go merges; the
 * others of that manager are dropped.
 */
export function upgradedManagedFields(
  managedFields: readonly JsonValue[],
  manager: string,
): JsonObject[] | undefined {
  const entries = managedFields.filter(isJsonObject).map((entry) => ({ ...entry }));
  let target = entries.findIndex((entry) => isEntry(entry, manager, 'Apply'));
  if (target < 0) {
    target = entries.findIndex((entry) => isEntry(entry, manager, 'Update'));
    const converted = entries[target];
    if (converted === undefined) return undefined;
    entries[target] = { ...converted, manager, operation: 'Apply' };
  }
  const applyEntry = entries[target] as JsonObject;
  const update = entries.find(
    (entry) => isEntry(entry, manager, 'Update') && entry.apiVersion === applyEntry.apiVersion,
  );
  const fields = withoutLastApplied(unionFields(fieldsOf(applyEntry), fieldsOf(update)));
  entries[target] = { ...applyEntry, fieldsType: 'FieldsV1', fieldsV1: fields };
  const upgraded = entries.filter((entry) => !isEntry(entry, manager, 'Update'));
  return JSON.stringify(upgraded) === JSON.stringify(managedFields) ? undefined : upgraded;
}
