import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { JsonObject } from './json.ts';
import { moduleOwner, GLOBAL_OWNER } from './values.ts';
import { ValuesSchemaError, ValuesSchemas, ValuesValidationError } from './values-schema.ts';
import { closeObjects, effectiveSchemas, extendSchema, requireForHelm } from './values-schema-transform.ts';

const yaml = (text: string): JsonObject => parse(text) as JsonObject;

function schemas(config?: string, values?: string, owner = moduleOwner('echo-server')): ValuesSchemas {
  return new ValuesSchemas(owner, {
    ...(config ? { configValues: { file: 'openapi/config-values.yaml', schema: yaml(config) } } : {}),
    ...(values ? { values: { file: 'openapi/values.yaml', schema: yaml(values) } } : {}),
  });
}

function issuesOf(fn: () => void): string[] {
  try {
    fn();
  } catch (error: unknown) {
    if (error instanceof ValuesValidationError)
      return error.issues.map((issue) => `${issue.path} ${issue.rule}`);
    throw error;
  }
  return [];
}

// addon-operator's VALUES.md example under "Extending": the effective schema, key for key and in order.
const EXTEND_CONFIG = `
type: object
additionalProperties: false
required: [project, clusterName]
properties:
  project: {type: string}
  clusterName: {type: string}
  clusterHostname: {type: string}
`;
const EXTEND_VALUES = `
x-extend:
  schema: config-values.yaml
type: object
additionalProperties: false
required: [discovery, param1]
properties:
  discovery: {type: object}
  param1: {type: string}
`;

describe('x-extend', () => {
  it('produces the effective schema of docs/values.md', () => {
    const effective = effectiveSchemas(yaml(EXTEND_CONFIG), yaml(EXTEND_VALUES)).values!;
    const { ['x-extend']: extend, ...rest } = effective;
    assert.deepEqual(extend, { schema: 'config-values.yaml' });
    assert.deepEqual(rest, {
      type: 'object',
      additionalProperties: false,
      required: ['project', 'clusterName', 'discovery', 'param1'],
      properties: {
        project: { type: 'string' },
        clusterName: { type: 'string' },
        clusterHostname: { type: 'string' },
        discovery: { type: 'object' },
        param1: { type: 'string' },
      },
    });
    assert.deepEqual(Object.keys(rest.properties as JsonObject), [
      'project',
      'clusterName',
      'clusterHostname',
      'discovery',
      'param1',
    ]);
  });

  it('takes definitions, patternProperties, title, description and x-* keys; the values schema wins', () => {
    const config = yaml(`
title: Config
description: From config
x-doc: config
x-only-config: 1
definitions: {a: {type: string}, b: {type: string}}
patternProperties: {'^p': {type: string}}
properties: {shared: {type: string}}
`);
    const values = yaml(`
x-extend: {schema: config-values.yaml}
x-doc: values
definitions: {b: {type: integer}}
properties: {shared: {type: integer}}
`);
    assert.deepEqual(extendSchema(values, config), {
      'x-extend': { schema: 'config-values.yaml' },
      'x-doc': 'values',
      'x-only-config': 1,
      title: 'Config',
      description: 'From config',
      definitions: { a: { type: 'string' }, b: { type: 'integer' } },
      patternProperties: { '^p': { type: 'string' } },
      properties: { shared: { type: 'integer' } },
    });
  });

  it('does nothing without x-extend or without a config schema', () => {
    const values = yaml('properties: {a: {type: string}}');
    assert.equal(extendSchema(values, yaml(EXTEND_CONFIG)), values);
    const extending = yaml(EXTEND_VALUES);
    assert.equal(extendSchema(extending, undefined), extending);
  });

  it('validates values against the extended schema', () => {
    const s = schemas(EXTEND_CONFIG, EXTEND_VALUES, GLOBAL_OWNER);
    s.validate('values', { project: 'p', clusterName: 'c', discovery: {}, param1: 'x' });
    assert.deepEqual(
      issuesOf(() => {
        s.validate('values', { project: 'p', discovery: {}, param1: 'x', extra: 1 });
      }),
      [
        "global must have required property 'clusterName'",
        "global must NOT have additional properties 'extra'",
      ],
    );
  });
});

describe('additionalProperties default', () => {
  it('closes the root and nested schemas that declare properties, through properties and items', () => {
    const closed = closeObjects(
      yaml(`
type: object
properties:
  nested: {type: object, properties: {a: {type: string}}}
  freeMap: {type: object}
  list: {type: array, items: {type: object, properties: {b: {type: string}}}}
  open: {type: object, additionalProperties: true, properties: {c: {type: object, properties: {d: {type: string}}}}}
  typed: {type: object, additionalProperties: {type: string}}
  patterned: {type: object, patternProperties: {'^x': {type: object, properties: {e: {type: string}}}}}
`),
    );
    const props = closed.properties as Record<string, JsonObject>;
    assert.equal(closed.additionalProperties, false);
    assert.equal(props.nested!.additionalProperties, false);
    assert.equal(
      props.freeMap!.additionalProperties,
      undefined,
      'docs/values.md: an object with no keys declared is open',
    );
    assert.equal((props.list!.items as JsonObject).additionalProperties, false);
    assert.equal(props.open!.additionalProperties, true);
    const below = (props.open!.properties as Record<string, JsonObject>).c!;
    assert.equal(below.additionalProperties, undefined, 'nothing below an explicit additionalProperties');
    assert.deepEqual(props.typed!.additionalProperties, { type: 'string' });
    assert.equal(props.patterned!.additionalProperties, false);
    const pattern = (props.patterned!.patternProperties as Record<string, JsonObject>)['^x']!;
    assert.equal(pattern.additionalProperties, undefined, 'patternProperties are not descended into');
  });

  it('rejects unknown keys where the schema declares keys, and accepts any key in a free map', () => {
    const s = schemas(`
type: object
properties:
  replicas: {type: integer}
  discovery: {type: object}
  resources: {type: object, properties: {cpu: {type: string}}}
`);
    s.validate('config', { replicas: 1, discovery: { anything: { goes: true } } });
    assert.deepEqual(
      issuesOf(() => {
        s.validate('config', { foo: 1, resources: { cpu: '1', memory: '1Gi' } });
      }),
      [
        "echoServer must NOT have additional properties 'foo'",
        "echoServer.resources must NOT have additional properties 'memory'",
      ],
    );
  });

  it('closes definitions instead of the $refs to them', () => {
    const s = schemas(`
definitions:
  port: {type: object, properties: {number: {type: integer}}}
properties:
  port: {$ref: '#/definitions/port'}
`);
    s.validate('config', { port: { number: 80 } });
    assert.deepEqual(
      issuesOf(() => {
        s.validate('config', { port: { number: 80, name: 'http' } });
      }),
      ["echoServer.port must NOT have additional properties 'name'"],
    );
  });
});

describe('x-required-for-helm', () => {
  // addon-operator's VALUES.md example under "Required fields".
  const VALUES = `
type: object
x-required-for-helm: [param1, param2]
properties:
  param1: {type: string}
  param2: {type: string}
`;

  it('builds the two effective schemas of docs/values.md', () => {
    const { values, helm } = effectiveSchemas(undefined, yaml(VALUES));
    const strip = (schema: JsonObject): JsonObject =>
      Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'x-required-for-helm'));
    const properties = { param1: { type: 'string' }, param2: { type: 'string' } };
    assert.deepEqual(strip(values!), { type: 'object', additionalProperties: false, properties });
    assert.deepEqual(strip(helm!), {
      type: 'object',
      additionalProperties: false,
      required: ['param1', 'param2'],
      properties,
    });
  });

  it('is checked before Helm only, and merges into nested required lists; a single name works too', () => {
    const s = schemas(undefined, VALUES);
    s.validate('values', { param1: 'a' });
    assert.deepEqual(
      issuesOf(() => {
        s.validate('helm', { param1: 'a' });
      }),
      ["echoServer must have required property 'param2'"],
    );
    const nested = requireForHelm(yaml('properties: {tls: {required: [a], x-required-for-helm: b}}'));
    assert.deepEqual((nested.properties as Record<string, JsonObject>).tls!.required, ['a', 'b']);
  });
});

describe('defaults', () => {
  // addon-operator's VALUES.md example under "Defaults".
  it('fills absent keys from default, recursively, into a copy', () => {
    const s = schemas(
      undefined,
      `
type: object
required: [param1]
properties:
  discovery: {type: object, default: {}}
  param1: {type: string}
  tls: {type: object, default: {}, properties: {enabled: {type: boolean, default: true}}}
  list: {type: array, items: {type: object, properties: {port: {type: integer, default: 80}}}}
`,
      GLOBAL_OWNER,
    );
    const input: JsonObject = { param1: 'x', list: [{}, { port: 8080 }] };
    assert.deepEqual(s.withDefaults('values', input), {
      param1: 'x',
      discovery: {},
      tls: { enabled: true },
      list: [{ port: 80 }, { port: 8080 }],
    });
    assert.deepEqual(input, { param1: 'x', list: [{}, { port: 8080 }] }, 'the input is not changed');
    assert.deepEqual(
      s.withDefaults('values', { param1: 'x', discovery: { a: 1 }, tls: null }),
      { param1: 'x', discovery: { a: 1 }, tls: null },
      'a key that is set, even to null, keeps its value',
    );
  });

  it('gives defaults from the config schema to values through x-extend', () => {
    const s = schemas(
      'properties: {replicas: {type: integer, default: 2}}',
      'x-extend: {schema: config-values.yaml}',
    );
    assert.deepEqual(s.withDefaults('values', {}), { replicas: 2 });
    assert.deepEqual(s.withDefaults('config', {}), { replicas: 2 });
  });
});

describe('schema keywords', () => {
  it('tolerates every x-* keyword, x-kubernetes-* included, at any depth', () => {
    const s = schemas(`
x-examples: [{a: 1}]
x-doc-default: 1
properties:
  a:
    type: object
    x-kubernetes-preserve-unknown-fields: true
    x-kubernetes-int-or-string: true
    x-custom: {nested: true}
    properties: {b: {type: string, x-doc-d8: yes}}
  x-literal-property-name: {type: string}
`);
    assert.deepEqual(s.warnings, []);
    s.validate('config', { a: { b: 'c' }, 'x-literal-property-name': 'kept as a property' });
  });

  it('reads draft-04 exclusiveMinimum/exclusiveMaximum booleans, OpenAPI annotations and formats', () => {
    const s = schemas(`
properties:
  port: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 65536, exclusiveMaximum: true, example: 80}
  ratio: {type: number, minimum: 0, exclusiveMinimum: false}
  address: {type: string, format: ipv4, nullable: true}
  since: {type: string, format: date-time}
  size: {type: integer, format: int32}
  unknownFormat: {type: string, format: my-own-format}
`);
    assert.deepEqual(s.warnings, []);
    s.validate('config', {
      port: 1,
      ratio: 0,
      address: null,
      since: '2024-01-02T03:04:05Z',
      size: 1,
      unknownFormat: '?',
    });
    assert.deepEqual(
      issuesOf(() => {
        s.validate('config', { port: 0, address: '300.1.1.1', since: 'yesterday', size: 2 ** 40 });
      }),
      [
        'echoServer.port must be > 0',
        'echoServer.address must match format "ipv4"',
        'echoServer.since must match format "date-time"',
        'echoServer.size must match format "int32"',
      ],
    );
  });

  it('names the module, the path inside the values and the rule', () => {
    const s = schemas(
      'properties: {replicas: {type: integer}, mode: {enum: [a, b]}, hosts: {type: array, items: {type: string}}}',
    );
    try {
      s.validate('config', { replicas: 'two', mode: 'c', hosts: ['a', 1], foo: true });
      assert.fail('expected a validation error');
    } catch (error: unknown) {
      assert.ok(error instanceof ValuesValidationError);
      assert.equal(error.code, 'values-validation-failed');
      assert.equal(error.kind, 'config');
      assert.equal(
        error.message,
        "module 'echo-server': config values do not match openapi/config-values.yaml: " +
          "echoServer must NOT have additional properties 'foo'; echoServer.replicas must be integer; " +
          'echoServer.mode must be equal to one of the allowed values ["a","b"]; echoServer.hosts.1 must be string.',
      );
      assert.match(error.hint, /Fix the config values/);
    }
  });

  it('accepts anything for a kind without a schema', () => {
    const s = schemas(undefined, undefined);
    assert.equal(s.has('config') || s.has('values') || s.has('helm'), false);
    s.validate('values', { whatever: [1] });
    assert.deepEqual(s.withDefaults('values', { a: 1 }), { a: 1 });
  });

  it('warns about unknown keywords and refuses schemas the meta-schema rejects, naming the file', () => {
    assert.deepEqual(schemas('properties: {a: {tpye: string}}').warnings, [
      "openapi/config-values.yaml: unknown keyword 'tpye' at /properties/a is ignored",
    ]);
    assert.throws(
      () => schemas('properties: {a: {type: strung}}'),
      (error: unknown) =>
        error instanceof ValuesSchemaError &&
        error.file === 'openapi/config-values.yaml' &&
        error.message.startsWith("module 'echo-server': openapi/config-values.yaml: invalid schema:"),
    );
    assert.throws(() => schemas(undefined, '[1, 2]'), /openapi\/values.yaml: the schema must be a map/);
  });
});

describe("patterns with RE2 semantics (linear time, as addon-operator's Go validator)", () => {
  it('matches a pattern that backtracking engines take exponential time on, on a long value', () => {
    const s = schemas('type: object\nproperties:\n  name:\n    type: string\n    pattern: "^(a+)+$"\n');
    const long = `${'a'.repeat(100_000)}b`;
    assert.deepEqual(
      issuesOf(() => {
        s.validate('config', { name: long });
      }),
      ['echoServer.name must match pattern "^(a+)+$"'],
    );
    s.validate('config', { name: 'a'.repeat(100_000) });
  });

  it('refuses a pattern RE2 cannot run (a lookahead), naming the schema file', () => {
    assert.throws(
      () => schemas('type: object\nproperties:\n  name:\n    type: string\n    pattern: "^(?=a)a$"\n'),
      (error: unknown) =>
        error instanceof ValuesSchemaError && /openapi\/config-values\.yaml/.test(error.message),
    );
  });
});
