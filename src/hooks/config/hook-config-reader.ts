import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';

/** Throws the HookConfigError for `field` (a path such as `kubernetes[0].kind`). */
export type FailAt = (field: string, problem: string, hint?: string) => never;

export interface ReaderContext {
  readonly fail: FailAt;
  /**
   * v1 configs are strict: a field the schema does not know is an error (shell-operator's schemas
   * say `additionalProperties: false`). Inside v0 bindings, unknown fields are ignored, as Go's
   * decoding ignores them.
   */
  readonly strict: boolean;
}

/**
 * One map of a hook config with its path, read field by field. Each reader checks the JSON type
 * and names the field when it is wrong.
 */
export class ConfigObject {
  readonly value: JsonObject;
  readonly path: string;
  readonly context: ReaderContext;

  constructor(value: JsonObject, path: string, context: ReaderContext) {
    this.value = value;
    this.path = path;
    this.context = context;
  }

  /** The same map read leniently: unknown fields are ignored below it. */
  lenient(): ConfigObject {
    return new ConfigObject(this.value, this.path, { ...this.context, strict: false });
  }

  keys(): string[] {
    return Object.keys(this.value);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.value, key);
  }

  /** The path of a field of this map. */
  pathOf(key: string): string {
    const step = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
    if (this.path === '') return step;
    return step.startsWith('[') ? `${this.path}${step}` : `${this.path}.${step}`;
  }

  /** Fails at a field of this map, or at the map itself when `key` is undefined. */
  fail(key: string | undefined, problem: string, hint?: string): never {
    return this.context.fail(key === undefined ? this.path : this.pathOf(key), problem, hint);
  }

  /** Fails at item `index` of the list in field `key`. */
  failItem(key: string, index: number, problem: string, hint?: string): never {
    return this.context.fail(`${this.pathOf(key)}[${index}]`, problem, hint);
  }

  /** In strict mode, refuses fields other than `allowed`, naming what `what` accepts. */
  allowOnly(allowed: readonly string[], what: string): void {
    if (!this.context.strict) return;
    const unknown = this.keys().find((key) => !allowed.includes(key));
    if (unknown !== undefined)
      this.fail(undefined, `unknown field '${unknown}'; ${what} accepts ${allowed.join(', ')}`);
  }

  string(key: string): string | undefined {
    const value = this.value[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') this.fail(key, `must be a string, not ${typeName(value)}`);
    return value;
  }

  requiredString(key: string): string {
    const value = this.string(key);
    if (value === undefined) this.fail(undefined, `'${key}' is required`);
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.value[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') this.fail(key, `must be true or false, not ${typeName(value)}`);
    return value;
  }

  integer(key: string, min?: number): number | undefined {
    const value = this.value[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value))
      this.fail(key, `must be an integer, not ${typeName(value)}`);
    if (min !== undefined && value < min)
      this.fail(key, `must be an integer of ${min} or more, not ${value}`);
    return value;
  }

  /** A list of strings, each one of `oneOf` when given. */
  stringList<T extends string = string>(
    key: string,
    options: { minItems?: number; oneOf?: readonly T[] } = {},
  ): T[] | undefined {
    const items = this.list(key, options.minItems);
    return items?.map((item, i) => {
      if (typeof item !== 'string') this.failItem(key, i, `must be a string, not ${typeName(item)}`);
      if (options.oneOf !== undefined && !(options.oneOf as readonly string[]).includes(item))
        this.failItem(key, i, `'${item}' is not one of ${options.oneOf.join(', ')}`);
      return item as T;
    });
  }

  object(key: string): ConfigObject | undefined {
    const value = this.value[key];
    if (value === undefined) return undefined;
    if (!isJsonObject(value)) this.fail(key, `must be a map, not ${typeName(value)}`);
    return new ConfigObject(value, this.pathOf(key), this.context);
  }

  objectList(key: string, minItems?: number): ConfigObject[] | undefined {
    const items = this.list(key, minItems);
    return items?.map((item, i) => {
      const path = `${this.pathOf(key)}[${i}]`;
      if (!isJsonObject(item)) this.context.fail(path, `must be a map, not ${typeName(item)}`);
      return new ConfigObject(item, path, this.context);
    });
  }

  private list(key: string, minItems = 0): JsonValue[] | undefined {
    const value = this.value[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) this.fail(key, `must be a list, not ${typeName(value)}`);
    if (value.length < minItems)
      this.fail(
        key,
        `must have at least ${minItems} item${minItems === 1 ? '' : 's'}; leave the field out instead`,
      );
    return value;
  }
}

/** How a message names a value's JSON type; numbers show themselves. */
export function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'number') return Number.isInteger(value) ? `the number ${value}` : `${value}`;
  return `a ${typeof value}`;
}
