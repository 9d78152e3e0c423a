import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { secretValuesOf, withoutSecretValues } from './secret-values.ts';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { errorMessage, KaddonError } from './errors.ts';
import { compileRe2 } from './re2.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from './json.ts';
import { addValuesFormats } from './values-schema-formats.ts';
import { effectiveSchemas, mapSubschemas } from './values-schema-transform.ts';
import { describeOwner, ownerValuesKey, type ValuesOwner } from './values.ts';

/** Which schema: config values, values, or values checked before Helm (docs/values.md "Validation"). */
export type ValuesSchemaKind = 'config' | 'values' | 'helm';

/** An owner's `openapi/config-values.yaml` and `openapi/values.yaml`, parsed, with their paths. */
export interface ValuesSchemaFiles {
  readonly configValues?: { readonly file: string; readonly schema: JsonValue };
  readonly values?: { readonly file: string; readonly schema: JsonValue };
}

/** A schema file that cannot be used: not a map, or rejected by the JSON Schema meta-schema. */
export class ValuesSchemaError extends KaddonError {
  readonly code = 'values-schema-invalid';
  readonly file: string;
  constructor(owner: ValuesOwner, file: string, problem: string, options?: { cause?: unknown }) {
    super(
      `${describeOwner(owner)}: ${file}: ${problem}.`,
      'Fix the OpenAPI schema: a map of JSON Schema keywords (x-* keys are free).',
      options,
    );
    this.file = file;
  }
}

/** One place where values break a schema: a dotted path inside the values and the rule. */
export interface ValuesIssue {
  readonly path: string;
  readonly rule: string;
}

/** Values that do not match the owner's schema. */
export class ValuesValidationError extends KaddonError {
  readonly code = 'values-validation-failed';
  readonly owner: ValuesOwner;
  readonly kind: ValuesSchemaKind;
  readonly issues: readonly ValuesIssue[];
  constructor(owner: ValuesOwner, kind: ValuesSchemaKind, file: string, issues: readonly ValuesIssue[]) {
    const shown = issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => `${issue.path} ${issue.rule}`);
    if (issues.length > MAX_ISSUES_SHOWN) shown.push(`and ${issues.length - MAX_ISSUES_SHOWN} more`);
    super(
      `${describeOwner(owner)}: ${KIND_LABEL[kind]} do not match ${file}: ${shown.join('; ')}.`,
      kind === 'config'
        ? 'Fix the config values (ConfigMap, values.yaml or the config values patch) or the schema.'
        : 'Fix the values (values.yaml, ConfigMap or the hook that patches them) or the schema.',
    );
    this.owner = owner;
    this.kind = kind;
    this.issues = issues;
  }
}

const MAX_ISSUES_SHOWN = 8;
const KIND_LABEL: Record<ValuesSchemaKind, string> = {
  config: 'config values',
  values: 'values',
  helm: 'values for Helm (required and x-required-for-helm)',
};

interface CompiledSchema {
  readonly file: string;
  readonly validate: ValidateFunction;
  /** The same schema compiled to fill in defaults as it validates. */
  readonly applyDefaults: ValidateFunction;
}

/**
 * The compiled schemas of global or one module. Validation and defaulting work on a copy of an
 * owner's section (`values.global`, `values.<moduleKey>`); a kind without a schema accepts anything.
 */
export class ValuesSchemas {
  readonly owner: ValuesOwner;
  /** Keywords the validator does not know, tolerated as go-openapi tolerates them. */
  readonly warnings: readonly string[];
  readonly #compiled: Partial<Record<ValuesSchemaKind, CompiledSchema>>;
  /** The effective config and values schemas, for the values they mark secret. */
  readonly #effective: readonly JsonObject[];

  constructor(owner: ValuesOwner, files: ValuesSchemaFiles = {}) {
    this.owner = owner;
    const config =
      files.configValues && schemaObject(owner, files.configValues.file, files.configValues.schema);
    const values = files.values && schemaObject(owner, files.values.file, files.values.schema);
    const effective = effectiveSchemas(config, values);
    const warnings: string[] = [];
    const compiled: Partial<Record<ValuesSchemaKind, CompiledSchema>> = {};
    for (const kind of ['config', 'values', 'helm'] as const) {
      const schema = effective[kind];
      const file = kind === 'config' ? files.configValues?.file : files.values?.file;
      if (schema && file) compiled[kind] = compile(owner, file, schema, warnings);
    }
    this.#compiled = compiled;
    this.#effective = [effective.config, effective.values].filter((schema) => schema !== undefined);
    this.warnings = [...new Set(warnings)];
  }

  /** The values of `section` the schemas mark `x-kaddon-secret` (docs/values.md "Secret values"). */
  secretValues(section: JsonValue): string[] {
    return this.#effective.flatMap((schema) => secretValuesOf(schema, section));
  }

  /** A copy of `section` with the values the schemas mark `x-kaddon-secret` replaced by `replacement`. */
  withoutSecrets(section: JsonValue, replacement: string): JsonValue {
    return this.#effective.reduce<JsonValue>(
      (value, schema) => withoutSecretValues(schema, value, replacement),
      section,
    );
  }

  has(kind: ValuesSchemaKind): boolean {
    return this.#compiled[kind] !== undefined;
  }

  /** A copy of the section with the schema's defaults filled in where keys are absent. */
  withDefaults(kind: ValuesSchemaKind, section: JsonValue): JsonValue {
    const copy = deepClone(section);
    this.#compiled[kind]?.applyDefaults(copy);
    return copy;
  }

  /** Throws a ValuesValidationError naming the owner, each path and rule broken. */
  validate(kind: ValuesSchemaKind, section: JsonValue): void {
    const compiled = this.#compiled[kind];
    if (!compiled || compiled.validate(section)) return;
    const root = ownerValuesKey(this.owner);
    const issues = (compiled.validate.errors ?? []).map((error) => describeIssue(root, error));
    throw new ValuesValidationError(this.owner, kind, compiled.file, issues);
  }
}

function schemaObject(owner: ValuesOwner, file: string, schema: JsonValue): JsonObject {
  if (!isJsonObject(schema)) throw new ValuesSchemaError(owner, file, 'the schema must be a map');
  return schema;
}

function compile(owner: ValuesOwner, file: string, schema: JsonObject, warnings: string[]): CompiledSchema {
  try {
    const normalized = normalize(schema, '', (warning) => warnings.push(`${file}: ${warning}`));
    const { validating, defaulting } = sharedValidators();
    return { file, validate: validating.compile(normalized), applyDefaults: defaulting.compile(normalized) };
  } catch (error: unknown) {
    const detail = errorMessage(error);
    throw new ValuesSchemaError(owner, file, `invalid schema: ${detail}`, { cause: error });
  }
}

/**
 * Two validators shared by every schema (compiling is cheap, creating an instance is not): one
 * checks values as they are, one fills in defaults. Not strict: unknown keywords and formats are
 * ignored as go-openapi ignores them, and normalize() reports them. `allErrors` lets every issue
 * be reported and every default be applied.
 */
let validators: { readonly validating: Ajv; readonly defaulting: Ajv } | undefined;

function sharedValidators(): { readonly validating: Ajv; readonly defaulting: Ajv } {
  validators ??= { validating: createAjv(false), defaulting: createAjv(true) };
  return validators;
}

/**
 * `pattern` and `patternProperties` run with RE2 semantics (re2js, a port of RE2), as addon-operator's
 * Go validator runs them: matching takes linear time, so a schema from a modules tree cannot make
 * validation take exponential time (`(a+)+$` against a long value). Lookarounds and backreferences,
 * which RE2 does not have, are schema errors.
 */
function re2(pattern: string): { test: (text: string) => boolean } {
  return compileRe2(pattern);
}

/** ajv's engine interface: the constructor, and where standalone code would import it from (unused). */
const RE2_ENGINE: RegExpEngine = Object.assign(re2, { code: 're2js' });

function createAjv(useDefaults: boolean): Ajv {
  const instance = new Ajv({
    allErrors: true,
    useDefaults,
    strict: false,
    logger: false,
    code: { regExp: RE2_ENGINE },
  });
  addValuesFormats(instance);
  return instance;
}

const KNOWN_KEYWORDS = new Set([
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'items', 'additionalItems', 'maxItems', 'minItems'],
  ...['uniqueItems', 'contains', 'maxProperties', 'minProperties', 'required', 'properties'],
  ...['patternProperties', 'additionalProperties', 'dependencies', 'propertyNames', 'if', 'then', 'else'],
  ...['allOf', 'anyOf', 'oneOf', 'not', 'definitions', '$defs', '$ref', '$comment', 'title', 'description'],
  ...['default', 'readOnly', 'writeOnly', 'examples', 'deprecated', 'contentMediaType', 'contentEncoding'],
  // OpenAPI 3 schema object annotations.
  ...['nullable', 'example', 'externalDocs', 'xml', 'discriminator'],
]);

/**
 * What Ajv gets: `x-*` extensions dropped (docs/values.md uses them as annotations), `$schema` and `$id`
 * dropped (schemas are anonymous and share one validator), draft-04 boolean
 * exclusiveMinimum/exclusiveMaximum (go-openapi's dialect) rewritten in the draft-07 form.
 */
function normalize(schema: JsonObject, at: string, warn: (warning: string) => void): JsonObject {
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword.startsWith('x-') || keyword === '$schema' || keyword === '$id') continue;
    if (!KNOWN_KEYWORDS.has(keyword)) warn(`unknown keyword '${keyword}' at ${at || '/'} is ignored`);
    out[keyword] = value;
  }
  const bounded = draft04Bounds(out, 'exclusiveMinimum', 'minimum');
  return mapSubschemas(draft04Bounds(bounded, 'exclusiveMaximum', 'maximum'), (sub, location) =>
    normalize(sub, `${at}/${location}`, warn),
  );
}

/** `minimum: 0, exclusiveMinimum: true` (draft 4) becomes `exclusiveMinimum: 0` (draft 7). */
function draft04Bounds(schema: JsonObject, exclusive: string, bound: string): JsonObject {
  const flag = schema[exclusive];
  if (typeof flag !== 'boolean') return schema;
  const limit = schema[bound];
  const rest = Object.fromEntries(
    Object.entries(schema).filter(([k]) => k !== exclusive && !(flag && k === bound)),
  );
  return flag && typeof limit === 'number' ? { ...rest, [exclusive]: limit } : rest;
}

function describeIssue(root: string, error: ErrorObject): ValuesIssue {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  let rule = error.message ?? error.keyword;
  if (error.keyword === 'additionalProperties') rule += ` '${String(params.additionalProperty)}'`;
  if (error.keyword === 'enum') rule += ` ${JSON.stringify(params.allowedValues)}`;
  return { path: [root, ...segments].join('.'), rule };
}
