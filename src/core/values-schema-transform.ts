import { isJsonObject, type JsonObject, type JsonValue } from './json.ts';

/**
 * The schema transforms of docs/values.md "Validation", pure, each over plain JSON schema objects:
 * `x-extend`, the `additionalProperties: false` default and `x-required-for-helm`. Each returns
 * a new schema and leaves its input untouched.
 */

/** The effective schemas of one owner: config values, values, and values checked before Helm. */
export interface EffectiveSchemas {
  readonly config?: JsonObject;
  readonly values?: JsonObject;
  readonly helm?: JsonObject;
}

/**
 * Builds the three schemas as addon-operator does: the config schema closed; the values schema
 * extended with the config schema, then closed; the helm schema, the values schema with
 * `x-required-for-helm` merged into `required`.
 */
export function effectiveSchemas(
  config: JsonObject | undefined,
  values: JsonObject | undefined,
): EffectiveSchemas {
  const closedConfig = config && closeObjects(config);
  const closedValues = values && closeObjects(extendSchema(values, closedConfig));
  return {
    ...(closedConfig ? { config: closedConfig } : {}),
    ...(closedValues ? { values: closedValues, helm: requireForHelm(closedValues) } : {}),
  };
}

/** Keywords whose value is one subschema, a map of subschemas, or a list of subschemas. */
const SINGLE = [
  'additionalProperties',
  'items',
  'additionalItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
const MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'items'];

/**
 * A copy of `schema` with every direct subschema replaced by `fn(subschema, location)`, where
 * location is the JSON pointer step to it (`properties/name`, `items`, `allOf/0`).
 */
export function mapSubschemas(
  schema: JsonObject,
  fn: (sub: JsonObject, location: string) => JsonObject,
): JsonObject {
  const out: JsonObject = { ...schema };
  for (const keyword of SINGLE) {
    const sub = schema[keyword];
    if (isJsonObject(sub)) out[keyword] = fn(sub, keyword);
  }
  for (const keyword of MAPS) {
    const map = schema[keyword];
    if (isJsonObject(map))
      out[keyword] = Object.fromEntries(
        Object.entries(map).map(([key, sub]) => [
          key,
          isJsonObject(sub) ? fn(sub, `${keyword}/${key}`) : sub,
        ]),
      );
  }
  for (const keyword of LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list))
      out[keyword] = list.map((sub, i) => (isJsonObject(sub) ? fn(sub, `${keyword}/${i}`) : sub));
  }
  return out;
}

function mapObject(map: JsonObject, fn: (value: JsonValue) => JsonValue): JsonObject {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, fn(value)]));
}

/**
 * `x-extend` (docs/values.md "Validation"): the values schema takes the config schema's definitions,
 * required, properties, patternProperties, title, description and `x-*` keys; its own entries win.
 */
export function extendSchema(values: JsonObject, config: JsonObject | undefined): JsonObject {
  const extend = values['x-extend'];
  if (!config || extend === undefined || extend === null || extend === false) return values;
  const out: JsonObject = { ...values };
  for (const keyword of ['definitions', 'properties', 'patternProperties']) {
    const merged = { ...asObject(config[keyword]), ...asObject(values[keyword]) };
    if (Object.keys(merged).length > 0) out[keyword] = merged;
  }
  const required = union(asStrings(config.required), asStrings(values.required));
  if (required.length > 0) out.required = required;
  for (const keyword of ['title', 'description']) {
    const own = values[keyword];
    const inherited = config[keyword];
    if ((own === undefined || own === '') && inherited !== undefined) out[keyword] = inherited;
  }
  for (const [keyword, value] of Object.entries(config)) {
    if (keyword.startsWith('x-') && !(keyword in values)) out[keyword] = value;
  }
  return out;
}

/**
 * The `additionalProperties: false` default (docs/values.md "Validation"): set on the root, and down
 * through `properties` (where it was unset) and `items`, on every schema that declares
 * `properties` or `patternProperties` and leaves `additionalProperties` unset. A schema that
 * declares no keys stays an open map: docs/values.md calls `discovery: {type: object}` "an optional
 * object with no restrictions on keys". Definitions are closed in place of the `$ref`s to them.
 */
export function closeObjects(schema: JsonObject): JsonObject {
  if ('$ref' in schema) return schema;
  const out: JsonObject = { ...schema };
  if (
    out.additionalProperties === undefined &&
    (isJsonObject(out.properties) || isJsonObject(out.patternProperties))
  )
    out.additionalProperties = false;
  if (isJsonObject(schema.properties))
    out.properties = mapObject(schema.properties, (sub) =>
      isJsonObject(sub) && sub.additionalProperties === undefined ? closeObjects(sub) : sub,
    );
  if (isJsonObject(schema.items)) out.items = closeObjects(schema.items);
  if (Array.isArray(schema.items))
    out.items = schema.items.map((sub) => (isJsonObject(sub) ? closeObjects(sub) : sub));
  for (const keyword of ['definitions', '$defs']) {
    const map = schema[keyword];
    if (isJsonObject(map))
      out[keyword] = mapObject(map, (sub) => (isJsonObject(sub) ? closeObjects(sub) : sub));
  }
  return out;
}

/**
 * `x-required-for-helm` (docs/values.md "Validation"): a name or a list of names merged into
 * `required`, at the root and down through `properties`.
 */
export function requireForHelm(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  const extra = schema['x-required-for-helm'];
  if (extra !== undefined) {
    const names = typeof extra === 'string' ? [extra] : asStrings(extra);
    out.required = union(asStrings(schema.required), names);
  }
  for (const keyword of ['properties', 'definitions', '$defs']) {
    const map = schema[keyword];
    if (isJsonObject(map))
      out[keyword] = mapObject(map, (sub) => (isJsonObject(sub) ? requireForHelm(sub) : sub));
  }
  return out;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}

function asStrings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function union(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}
