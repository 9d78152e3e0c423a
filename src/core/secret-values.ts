import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/** The schema extension that marks a value secret (docs/values.md "Secret values"). */
const SECRET_KEYWORD = 'x-kaddon-secret';

/**
 * The values a schema marks `x-kaddon-secret: true`, as text: every scalar at or under a marked
 * node, found through `properties`, `additionalProperties` and `items`.
 */
export function secretValuesOf(schema: JsonValue | undefined, value: JsonValue | undefined): string[] {
  const found: string[] = [];
  collect(schema, value, found);
  return found;
}

function collect(schema: JsonValue | undefined, value: JsonValue | undefined, found: string[]): void {
  if (!isJsonObject(schema) || value === undefined || value === null) return;
  if (schema[SECRET_KEYWORD] === true) {
    scalarsOf(value, found);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(schema.items, item, found);
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  for (const [key, item] of Object.entries(value))
    collect(Object.hasOwn(properties, key) ? properties[key] : additional(schema), item, found);
}

function additional(schema: JsonObject): JsonValue | undefined {
  return isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function scalarsOf(value: JsonValue, found: string[]): void {
  if (typeof value === 'string') found.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') found.push(String(value));
  else if (Array.isArray(value)) for (const item of value) scalarsOf(item, found);
  else if (isJsonObject(value)) for (const item of Object.values(value)) scalarsOf(item, found);
}

/**
 * A copy of `value` with every node the schema marks `x-kaddon-secret: true` replaced by `replacement`
 * (docs/ui.md "Who may see what": values shown to who may not read Secrets).
 */
export function withoutSecretValues(
  schema: JsonValue | undefined,
  value: JsonValue,
  replacement: string,
): JsonValue {
  if (!isJsonObject(schema) || value === null) return value;
  if (schema[SECRET_KEYWORD] === true) return replacement;
  if (Array.isArray(value)) return value.map((item) => withoutSecretValues(schema.items, item, replacement));
  if (!isJsonObject(value)) return value;
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      withoutSecretValues(
        Object.hasOwn(properties, key) ? properties[key] : additional(schema),
        item,
        replacement,
      ),
    ]),
  );
}
