import { JsonStreamSyntaxError, parseJsonStream } from './json-stream.ts';
import { KaddonError } from './errors.ts';
import { isJsonObject, type JsonValue } from './json.ts';
import { isValidModuleName, moduleNameFromValuesKey, moduleValuesKey } from './module-name.ts';
import { ownerValuesKey, type ValuesOwner } from './values.ts';

/**
 * Values patches (docs/values.md "Patches from hooks"): what a hook writes to `$VALUES_JSON_PATCH_PATH`
 * (kept in memory) and `$CONFIG_VALUES_JSON_PATCH_PATH` (persisted in config values), parsed,
 * checked operation by operation and cut to the hook's scope.
 */

/** JSON Patch operations a hook may return. `replace` is refused, as addon-operator refuses it. */
type ValuesPatchOp = 'add' | 'remove' | 'move' | 'copy' | 'test';

export interface ValuesPatchOperation {
  readonly op: ValuesPatchOp;
  readonly path: string;
  readonly value?: JsonValue;
  readonly from?: string;
}

export type ValuesPatch = readonly ValuesPatchOperation[];

/** Which file a patch came from. */
type ValuesPatchKind = 'values' | 'config';

/** Who produced the operations, for messages: a hook, or (no hook) the patches stored from earlier runs. */
export interface PatchSource {
  readonly hook?: string;
  readonly kind: ValuesPatchKind;
}

export type ValuesPatchErrorCode =
  'values-patch-invalid' | 'values-patch-out-of-scope' | 'values-patch-failed';

/** A values patch a hook returned that cannot be applied; the hook run fails. */
export class ValuesPatchError extends KaddonError {
  readonly code: ValuesPatchErrorCode;
  readonly hook: string | undefined;
  constructor(
    code: ValuesPatchErrorCode,
    source: PatchSource,
    problem: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    const subject =
      source.hook === undefined
        ? 'stored values patches'
        : `hook '${source.hook}': ${PATCH_FILE[source.kind]}`;
    super(`${subject}: ${problem}.`, hint, options);
    this.code = code;
    this.hook = source.hook;
  }
}

const PATCH_FILE: Record<ValuesPatchKind, string> = {
  values: 'values patch ($VALUES_JSON_PATCH_PATH)',
  config: 'config values patch ($CONFIG_VALUES_JSON_PATCH_PATH)',
};

/** `operation #2 {"op":"add",…}`: an operation as messages name it, long values cut short. */
export function describeOperation(index: number, operation: unknown): string {
  const text = JSON.stringify(operation);
  return `operation #${index + 1} ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`;
}

/**
 * Parses a patch file as addon-operator reads it: a stream of JSON documents, each an operation
 * or a list of operations, one after another or line by line. An empty file is no patch.
 */
export function parseValuesPatch(text: string, source: PatchSource): ValuesPatch {
  const operations: ValuesPatchOperation[] = [];
  for (const item of jsonStream(text, source)) {
    const entries = Array.isArray(item) ? item : item === null ? [] : [item];
    for (const entry of entries) operations.push(parseOperation(entry, operations.length, source));
  }
  return operations;
}

function* jsonStream(text: string, source: PatchSource): Generator<JsonValue> {
  try {
    yield* parseJsonStream(text);
  } catch (error: unknown) {
    if (!(error instanceof JsonStreamSyntaxError)) throw error;
    throw new ValuesPatchError(
      'values-patch-invalid',
      source,
      error.message,
      'Write JSON Patch operations: a JSON list of {"op","path","value"} objects, or one object per line.',
      { cause: error },
    );
  }
}

const OPS: ReadonlySet<string> = new Set<ValuesPatchOp>(['add', 'remove', 'move', 'copy', 'test']);

function parseOperation(entry: JsonValue, index: number, source: PatchSource): ValuesPatchOperation {
  const fail = (problem: string, hint: string): ValuesPatchError =>
    new ValuesPatchError(
      'values-patch-invalid',
      source,
      `${describeOperation(index, entry)}: ${problem}`,
      hint,
    );
  if (!isJsonObject(entry))
    throw fail('an operation must be an object', 'Write {"op":"add","path":"/…","value":…}.');
  const { op, path, value, from } = entry;
  if (op === 'replace')
    throw fail("unsupported patch operation 'replace'", 'Use add: on a map key it replaces the value too.');
  if (typeof op !== 'string' || !OPS.has(op))
    throw fail(`'op' must be one of ${[...OPS].join(', ')}`, 'Fix the op field.');
  if (!isJsonPointer(path))
    throw fail("'path' must be a JSON pointer such as /global/key", 'Fix the path field.');
  if ((op === 'add' || op === 'test') && !('value' in entry))
    throw fail(`a '${op}' operation needs a 'value'`, 'Add the value field.');
  if ((op === 'move' || op === 'copy') && !isJsonPointer(from))
    throw fail(`a '${op}' operation needs 'from', a JSON pointer`, 'Add the from field.');
  return {
    op: op as ValuesPatchOp,
    path,
    ...(value !== undefined && (op === 'add' || op === 'test') ? { value } : {}),
    ...(typeof from === 'string' && (op === 'move' || op === 'copy') ? { from } : {}),
  };
}

function isJsonPointer(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && (value === '' || value.startsWith('/')) && !/~(?![01])/.test(value);
}

/** The unescaped reference tokens of a JSON pointer. */
export function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** A `<moduleKey>Enabled` flag set (true/false) or unset (undefined) by a global hook. */
export interface EnabledFlagPatch {
  readonly moduleKey: string;
  readonly enabled: boolean | undefined;
}

export interface ScopedValuesPatch {
  /** Operations on the owner's own section. */
  readonly values: ValuesPatch;
  /** `/<module>Enabled` operations of a global hook (dynamic enable). */
  readonly enabled: readonly EnabledFlagPatch[];
}

/**
 * Cuts a patch to the hook's scope (docs/values.md "Layers"): a global hook changes `/global/…`
 * and, as addon-operator allows, `/<module>Enabled` flags (add a boolean or "true"/"false", or
 * remove); a module hook changes `/<moduleKey>/…` only. Anything else fails the hook run.
 */
export function scopeValuesPatch(
  patch: ValuesPatch,
  owner: ValuesOwner,
  source: PatchSource,
): ScopedValuesPatch {
  const key = ownerValuesKey(owner);
  const values: ValuesPatchOperation[] = [];
  const enabled: EnabledFlagPatch[] = [];
  patch.forEach((operation, index) => {
    const fail = (problem: string, hint: string): ValuesPatchError =>
      new ValuesPatchError(
        'values-patch-out-of-scope',
        source,
        `${describeOperation(index, operation)}: ${problem}`,
        hint,
      );
    const [root, ...rest] = pointerSegments(operation.path);
    if (owner.kind === 'global' && root !== undefined && isEnabledFlagKey(root)) {
      enabled.push(enabledFlagPatch(operation, root, rest.length, fail));
      return;
    }
    const scope = owner.kind === 'global' ? 'only /global/… and /<module>Enabled' : `only /${key}/…`;
    const hint =
      owner.kind === 'global'
        ? `A global hook may change ${scope}; a module's values are set by that module's own hooks.`
        : `A module hook may change ${scope}; what other modules or the global section need is set by a global hook.`;
    if (root !== key) throw fail(`the path is outside this hook's values (${scope})`, hint);
    if (operation.from !== undefined && pointerSegments(operation.from)[0] !== key)
      throw fail(`'from' is outside this hook's values (${scope})`, hint);
    if (rest.length === 0 && !isSectionReplacement(operation, owner))
      throw fail(
        `the operation would remove or retype the whole '${key}' section`,
        `Patch keys inside /${key}.`,
      );
    values.push(operation);
  });
  return { values, enabled };
}

function isEnabledFlagKey(segment: string): boolean {
  if (!segment.endsWith('Enabled')) return false;
  const moduleKey = segment.slice(0, -'Enabled'.length);
  const name = moduleNameFromValuesKey(moduleKey);
  return isValidModuleName(name) && moduleValuesKey(name) === moduleKey;
}

function enabledFlagPatch(
  operation: ValuesPatchOperation,
  root: string,
  depth: number,
  fail: (problem: string, hint: string) => ValuesPatchError,
): EnabledFlagPatch {
  const moduleKey = root.slice(0, -'Enabled'.length);
  const hint = `Write {"op":"add","path":"/${root}","value":true} (or false), or {"op":"remove","path":"/${root}"}.`;
  if (depth > 0 || (operation.op !== 'add' && operation.op !== 'remove'))
    throw fail('a module enabled flag is set with add or unset with remove, at /<module>Enabled', hint);
  if (operation.op === 'remove') return { moduleKey, enabled: undefined };
  const { value } = operation;
  if (typeof value === 'boolean') return { moduleKey, enabled: value };
  if (typeof value === 'string' && /^(true|false)$/i.test(value))
    return { moduleKey, enabled: value.toLowerCase() === 'true' };
  throw fail('a module enabled flag must be true or false', hint);
}

/** The whole section may be replaced by `add` with a map (or, for a module, a list). */
function isSectionReplacement(operation: ValuesPatchOperation, owner: ValuesOwner): boolean {
  if (operation.op === 'test') return true;
  if (operation.op !== 'add') return false;
  return isJsonObject(operation.value ?? null) || (owner.kind === 'module' && Array.isArray(operation.value));
}
