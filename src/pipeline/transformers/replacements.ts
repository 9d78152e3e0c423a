import { KustomizeError } from '../../core/errors.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type {
  Replacement,
  ReplacementOptions,
  ReplacementSource,
  ReplacementTarget,
  Selector,
} from '../../core/kustomization.ts';
import { describeId, formatId, type ResId } from '../../core/res-id.ts';
import type { Resource } from '../../core/resource.ts';
import {
  compileGoRegExp,
  type GoRegExp,
  LABEL_SELECTOR_HINT,
  matchesLabelSelector,
  parseLabelSelector,
  type LabelRequirement,
} from '../select-resources.ts';

const DEFAULT_FIELD_PATH = 'metadata.name';

type ScalarType = 'string' | 'number' | 'boolean';

/**
 * What a replacement copies: a scalar's text with the type it had in the source (none for
 * `sourceValue`, which is typed like a plain YAML scalar), or a whole map or list.
 */
type ReplacementValue =
  | { readonly text: string; readonly type: ScalarType | undefined }
  | { readonly node: JsonObject | JsonValue[] };

/**
 * kustomize's `replacements` (api/filters/replacement, v5.5.0), in order. The source must select
 * exactly one object by any of its ids; targets are selected by exact ids, label and annotation
 * selectors, minus `reject`. A target field path that reaches nothing is an error unless
 * `options.create` creates it. Written into an existing scalar, the value takes that field's type.
 */
export function applyReplacements(
  resources: readonly Resource[],
  replacements: readonly Replacement[],
  file: string,
): void {
  for (const replacement of replacements) {
    const { source, sourceValue, targets } = replacement;
    if ((source === undefined && sourceValue === undefined) || targets === undefined) {
      fail(file, 'a replacement must have a source (or sourceValue) and targets', SHAPE_HINT);
    }
    if (source !== undefined && sourceValue !== undefined) {
      fail(file, 'a replacement has both source and sourceValue', 'Keep only one of source and sourceValue.');
    }
    const value =
      source === undefined
        ? { text: String(sourceValue), type: undefined }
        : readSource(resources, source, file);
    for (const target of targets) applyTarget(resources, value, target, file);
  }
}

const SHAPE_HINT =
  'Write each replacement as {source: {kind, name, fieldPath}, targets: [{select, fieldPaths}]}.';

function fail(file: string, problem: string, hint: string): never {
  throw new KustomizeError('replacement-invalid', file, `replacements: ${problem}`, hint);
}

function readSource(
  resources: readonly Resource[],
  source: ReplacementSource,
  file: string,
): ReplacementValue {
  const resource = selectSource(resources, source, file);
  const fieldPath = source.fieldPath || DEFAULT_FIELD_PATH;
  const subject = `source ${describeId(resource.id)}`;
  const found = lookupSourceField(resource.obj, splitReplacementPath(fieldPath), (problem) =>
    fail(file, `${subject}: fieldPath '${fieldPath}': ${problem}`, FIELD_PATH_HINT),
  );
  if (isNilOrEmpty(found)) {
    fail(
      file,
      `${subject}: fieldPath '${fieldPath}' is missing`,
      'Point source.fieldPath at a field with a value; null, {} and [] count as missing.',
    );
  }
  const value = valueOf(found);
  const delimiter = source.options?.delimiter;
  if (!delimiter) return value;
  if ('node' in value) {
    fail(file, `${subject}: options.delimiter needs a scalar at '${fieldPath}'`, DELIMITER_HINT);
  }
  const index = source.options?.index ?? 0;
  const piece = value.text.split(delimiter)[index];
  if (index < 0 || piece === undefined) {
    fail(
      file,
      `${subject}: options.index ${index} is out of bounds for value '${value.text}'`,
      `The value has ${value.text.split(delimiter).length} parts separated by '${delimiter}'; index counts from 0.`,
    );
  }
  return { text: piece, type: value.type };
}

const FIELD_PATH_HINT =
  'Write field paths as dot-separated keys, list indexes and [field=value] list selectors, ' +
  'with keys that contain dots in brackets: metadata.annotations.[example.com/key].';
const DELIMITER_HINT = 'Use options.delimiter only with fields that hold a string, number or boolean.';

function selectSource(resources: readonly Resource[], source: ReplacementSource, file: string): Resource {
  const matches = resources.filter((resource) => idsOf(resource).some((id) => isSelectedBy(id, source)));
  const [only] = matches;
  if (only && matches.length === 1) return only;
  const wanted = formatId({
    group: source.group ?? '',
    version: source.version ?? '',
    kind: source.kind ?? '',
    name: source.name ?? '',
    namespace: source.namespace ?? '',
  });
  if (!only) {
    fail(
      file,
      `source ${wanted} selects no resource`,
      "Check the source's kind, name and namespace; the name before or after namePrefix/nameSuffix both work.",
    );
  }
  const found = matches.map((resource) => describeId(resource.id)).join(', ');
  fail(
    file,
    `source ${wanted} selects more than one resource (${found})`,
    'Add kind, name or namespace to the source so that it selects exactly one resource.',
  );
}

function idsOf(resource: Resource): ResId[] {
  return [resource.id, ...resource.previousIds];
}

/** kustomize's ResId.IsSelectedBy: each non-empty selector field equals the id's; '' and default are one namespace. */
function isSelectedBy(id: ResId, selector: ReplacementSource | Selector): boolean {
  const namespace = (ns: string | undefined): string => (ns ? ns : 'default');
  return (
    (!selector.name || selector.name === id.name) &&
    (!selector.namespace || namespace(selector.namespace) === namespace(id.namespace)) &&
    (!selector.group || selector.group === id.group) &&
    (!selector.version || selector.version === id.version) &&
    (!selector.kind || selector.kind === id.kind)
  );
}

function isEmptyIdSelector(selector: Selector): boolean {
  return !selector.group && !selector.version && !selector.kind && !selector.name && !selector.namespace;
}

function isNilOrEmpty(value: JsonValue | undefined): value is undefined | null {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

function valueOf(value: JsonValue): ReplacementValue {
  if (typeof value === 'string') return { text: value, type: 'string' };
  if (typeof value === 'number') return { text: String(value), type: 'number' };
  if (typeof value === 'boolean') return { text: String(value), type: 'boolean' };
  return { node: deepClone(value as JsonObject | JsonValue[]) };
}

/** A target's selection with its label and annotation selectors parsed once. */
interface TargetSelection {
  readonly select: Selector;
  readonly labels: Labels;
  readonly rejects: readonly { readonly selector: Selector; readonly labels: Labels | undefined }[];
}

interface Labels {
  readonly labels: readonly LabelRequirement[];
  readonly annotations: readonly LabelRequirement[];
}

function applyTarget(
  resources: readonly Resource[],
  value: ReplacementValue,
  target: ReplacementTarget,
  file: string,
): void {
  if (target.select === undefined) {
    fail(file, 'a target must specify resources to select', 'Add select: {kind: …, name: …} to the target.');
  }
  const selection: TargetSelection = {
    select: target.select,
    labels: parseLabels(target.select, file),
    rejects: (target.reject ?? []).map((reject) => ({
      selector: reject,
      labels: reject.labelSelector || reject.annotationSelector ? parseLabels(reject, file) : undefined,
    })),
  };
  const fieldPaths = target.fieldPaths?.length ? target.fieldPaths : [DEFAULT_FIELD_PATH];
  for (const resource of resources) {
    if (!isTarget(resource, selection)) continue;
    for (const fieldPath of fieldPaths) copyToField(resource, fieldPath, value, target.options ?? {}, file);
  }
}

function parseLabels(selector: Selector, file: string): Labels {
  const parse = (field: string, text: string | undefined): LabelRequirement[] =>
    parseLabelSelector(text ?? '', field, (problem) =>
      fail(file, `target ${field} '${text ?? ''}': ${problem}`, LABEL_SELECTOR_HINT),
    );
  return {
    labels: parse('labelSelector', selector.labelSelector),
    annotations: parse('annotationSelector', selector.annotationSelector),
  };
}

function matchesLabels(resource: Resource, labels: Labels): boolean {
  return (
    matchesLabelSelector(labels.labels, resource.labels()) &&
    matchesLabelSelector(labels.annotations, resource.annotations())
  );
}

/**
 * Selected by labels and by one of its ids; rejected by any reject's labels, or when a reject names
 * any of its ids, current or previous (replacement.go containsRejectId).
 */
function isTarget(resource: Resource, selection: TargetSelection): boolean {
  if (!matchesLabels(resource, selection.labels)) return false;
  if (selection.rejects.some((reject) => reject.labels && matchesLabels(resource, reject.labels)))
    return false;
  const ids = idsOf(resource);
  const isRejected = selection.rejects.some(
    (reject) => !isEmptyIdSelector(reject.selector) && ids.some((id) => isSelectedBy(id, reject.selector)),
  );
  return !isRejected && ids.some((id) => isSelectedBy(id, selection.select));
}

function copyToField(
  resource: Resource,
  fieldPath: string,
  value: ReplacementValue,
  options: ReplacementOptions,
  file: string,
): void {
  const create = options.create === true;
  const subject = `target ${describeId(resource.id)}: unable to ${create ? 'find or create' : 'find'} field '${fieldPath}'`;
  const walk: TargetWalk = {
    parts: splitReplacementPath(fieldPath),
    create,
    found: [],
    fail: (problem) => fail(file, `${subject}: ${problem}`, FIELD_PATH_HINT),
  };
  walkTarget(walk, resource.obj, 0, [], () => {
    walk.fail('the object itself cannot be replaced');
  });
  if (walk.found.length === 0) {
    fail(
      file,
      subject,
      create
        ? FIELD_PATH_HINT
        : 'Fix the field path, or set options.create: true on the target to create the field.',
    );
  }
  for (const field of walk.found) {
    field.set(
      fieldValue(field, value, options, (problem) =>
        fail(file, `target ${describeId(resource.id)}: ${problem}`, DELIMITER_HINT),
      ),
    );
  }
}

/** A field a target path reached; `value` is undefined when the field was just created. */
interface TargetField {
  readonly value: JsonValue | undefined;
  readonly path: readonly string[];
  readonly set: (value: JsonValue) => void;
}

interface TargetWalk {
  readonly parts: readonly string[];
  readonly create: boolean;
  readonly found: TargetField[];
  readonly fail: (problem: string) => never;
}

type Setter = (value: JsonValue) => void;

/**
 * kyaml's PathMatcher: keys, list indexes, `[field=regex]` (an unanchored regex, every matching
 * element), `[=regex]` for lists of scalars and `*` for every element. With create, missing maps
 * and lists are made, an index equal to the length appends, and `[field=value]` appends
 * `{field: value}` when no element matches.
 */
function walkTarget(walk: TargetWalk, node: JsonValue, index: number, path: string[], set: Setter): void {
  const part = walk.parts[index];
  if (part === undefined) {
    walk.found.push({ value: node, path, set });
  } else if (isIndexPart(part)) {
    walkIndex(walk, node, index, path, set);
  } else if (isListPart(part)) {
    walkList(walk, node, index, path, set);
  } else if (part === '*') {
    if (node === null) return;
    if (!Array.isArray(node)) walk.fail(`'*' at '${path.join('.')}' needs a list`);
    node.forEach((item, i) => {
      walkTarget(walk, item, index + 1, [...path, String(i)], (next) => (node[i] = next));
    });
  } else {
    walkKey(walk, node, index, path, set);
  }
}

function walkKey(walk: TargetWalk, node: JsonValue, index: number, path: string[], set: Setter): void {
  const key = walk.parts[index] ?? '';
  const map = node === null && walk.create ? replaceWith(set, {}) : node;
  if (!isJsonObject(map)) {
    if (walk.create) walk.fail(`'${path.join('.')}' is not a map`);
    return;
  }
  const child = map[key];
  const childPath = [...path, key];
  const setChild: Setter = (next) => (map[key] = next);
  if (child !== undefined) {
    walkTarget(walk, child, index + 1, childPath, setChild);
  } else if (walk.create) {
    createAndWalk(walk, index + 1, childPath, setChild);
  }
}

function walkIndex(walk: TargetWalk, node: JsonValue, index: number, path: string[], set: Setter): void {
  const position = Number(walk.parts[index]);
  const list = node === null ? (walk.create ? replaceWith(set, []) : []) : node;
  if (!Array.isArray(list)) walk.fail(`'${path.join('.')}' is not a list`);
  const itemPath = [...path, String(position)];
  const setItem: Setter = (next) => (list[position] = next);
  if (position === list.length && walk.create) {
    list.push(null);
    createAndWalk(walk, index + 1, itemPath, setItem);
    return;
  }
  const item = list[position];
  if (item === undefined) walk.fail(`index ${position} specified but only ${list.length} elements found`);
  walkTarget(walk, item, index + 1, itemPath, setItem);
}

function walkList(walk: TargetWalk, node: JsonValue, index: number, path: string[], set: Setter): void {
  const part = walk.parts[index] ?? '';
  const selector = splitListPart(part) ?? walk.fail(`'${part}' must be [field=value]`);
  const list = node === null && walk.create ? replaceWith(set, []) : node;
  if (list === null) return;
  if (!Array.isArray(list)) walk.fail(`'${path.join('.')}' is not a list`);
  const pattern =
    compileGoRegExp(selector.value) ?? walk.fail(`'${selector.value}' is not a valid regular expression`);
  const before = walk.found.length;
  visitMatchingItems(walk, list, selector.field, pattern, index, [...path, part]);
  if (walk.found.length > before || !walk.create) return;
  const created = resolvePlainScalar(selector.value);
  list.push(selector.field === '' ? created : { [selector.field]: created });
  visitMatchingItems(walk, list, selector.field, pattern, index, [...path, part]);
  if (walk.found.length === before) walk.fail(`the element created for '${part}' does not match it`);
}

/** A matching scalar item is itself the result (kyaml ignores the rest of the path there). */
function visitMatchingItems(
  walk: TargetWalk,
  list: JsonValue[],
  field: string,
  pattern: GoRegExp,
  index: number,
  path: string[],
): void {
  list.forEach((item, i) => {
    const setItem: Setter = (next) => (list[i] = next);
    if (field === '') {
      const text = scalarText(item);
      if (text !== undefined && pattern.test(text)) walk.found.push({ value: item, path, set: setItem });
      return;
    }
    const text = isJsonObject(item) ? scalarText(item[field]) : undefined;
    if (text !== undefined && pattern.test(text)) walkTarget(walk, item, index + 1, path, setItem);
  });
}

/** Creates what the rest of the path needs: a list before an index or `[…]`, else a map; the leaf is left to set. */
function createAndWalk(walk: TargetWalk, index: number, path: string[], set: Setter): void {
  const next = walk.parts[index];
  if (next === undefined) {
    walk.found.push({ value: undefined, path, set });
    return;
  }
  const container: JsonValue = isIndexPart(next) || isListPart(next) ? [] : {};
  set(container);
  walkTarget(walk, container, index, path, set);
}

function replaceWith<T extends JsonValue>(set: Setter, value: T): T {
  set(value);
  return value;
}

/**
 * The value written into one target field. Into a scalar (and with a delimiter, into a piece of
 * it) only the text is copied and the field keeps its type; a created field is typed like a plain
 * YAML scalar; a map or list field is replaced by the value. Annotations stay strings, as
 * kustomize writes them out.
 */
function fieldValue(
  field: TargetField,
  value: ReplacementValue,
  options: ReplacementOptions,
  failField: (problem: string) => never,
): JsonValue {
  const target = field.value;
  const isScalarTarget = target === undefined ? !('node' in value) : !isContainer(target);
  const isAnnotation =
    field.path.length === 3 && field.path[0] === 'metadata' && field.path[1] === 'annotations';
  const text = 'node' in value ? '' : value.text;
  if (options.delimiter) {
    if (!isScalarTarget) failField(`options.delimiter needs a scalar at '${field.path.join('.')}'`);
    const pieces = (scalarText(target ?? null) ?? '').split(options.delimiter);
    const position = options.index ?? 0;
    if (position < 0) pieces.unshift(text);
    else if (position >= pieces.length) pieces.push(text);
    else pieces[position] = text;
    return typedScalar(pieces.join(options.delimiter), isAnnotation ? 'string' : scalarType(target));
  }
  if (isScalarTarget) return typedScalar(text, isAnnotation ? 'string' : scalarType(target));
  if ('node' in value) return deepClone(value.node);
  return typedScalar(value.text, isAnnotation ? 'string' : value.type);
}

function isContainer(value: JsonValue): value is JsonObject | JsonValue[] {
  return Array.isArray(value) || isJsonObject(value);
}

function scalarType(value: JsonValue | undefined): ScalarType | undefined {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return undefined;
}

/** Text typed as a field of that type holds it; untyped text resolves like a plain YAML scalar. */
function typedScalar(text: string, type: ScalarType | undefined): JsonValue {
  if (type === 'string') return text;
  const resolved = resolvePlainScalar(text);
  if (type === undefined || typeof resolved === type) return resolved;
  return text;
}

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/**
 * yaml.v3's implicit typing of an untagged plain scalar, as kustomize gives created fields: null,
 * true/false, Go integers (hex, octal, binary, `_` separators) and floats; anything else is a
 * string. Infinity, NaN and timestamps stay strings.
 */
function resolvePlainScalar(text: string): JsonValue {
  if (['', '~', 'null', 'Null', 'NULL'].includes(text)) return null;
  if (['true', 'True', 'TRUE'].includes(text)) return true;
  if (['false', 'False', 'FALSE'].includes(text)) return false;
  const plain = text.replaceAll('_', '');
  const integer = GO_INT.exec(plain);
  if (integer) {
    const [, sign, digits = ''] = integer;
    const octal = digits.length > 1 && digits.startsWith('0') && /^0[0-7]+$/.test(digits);
    const magnitude = octal ? parseInt(digits, 8) : Number(digits.toLowerCase());
    return sign === '-' ? -magnitude : magnitude;
  }
  if (YAML_FLOAT.test(plain)) return Number(plain);
  return text;
}

function scalarText(value: JsonValue | undefined): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return undefined;
}

/**
 * Splits a replacement field path at dots (kyaml SmarterPathSplitter): `\.` escapes a dot, a leading
 * dot is ignored, `[field=value]` stays one part, and `[a.b/c]` is the map key `a.b/c`.
 */
export function splitReplacementPath(path: string): string[] {
  const pieces = path.split('.');
  if (pieces.length > 1 && pieces[0] === '') pieces.shift();
  const unescaped: string[] = [];
  for (const piece of pieces) {
    const last = unescaped.length - 1;
    const previous = unescaped[last];
    if (previous?.endsWith('\\')) unescaped[last] = `${previous.slice(0, -1)}.${piece}`;
    else unescaped.push(piece);
  }
  const parts: string[] = [];
  for (let i = 0; i < unescaped.length; i++) {
    const piece = unescaped[i] ?? '';
    if (!piece.startsWith('[') || piece.endsWith(']')) {
      parts.push(piece);
      continue;
    }
    const bracketed = [piece];
    while (i < unescaped.length - 1) {
      i++;
      const next = unescaped[i] ?? '';
      bracketed.push(next);
      if (next.endsWith(']')) break;
    }
    const joined = bracketed.join('.');
    parts.push(joined.includes('=') ? joined : joined.replace(/^[[\]]+|[[\]]+$/g, ''));
  }
  return parts;
}

function isIndexPart(part: string): boolean {
  return /^\+?\d+$/.test(part);
}

function isListPart(part: string): boolean {
  return part.startsWith('[') && part.endsWith(']');
}

function splitListPart(part: string): { field: string; value: string } | undefined {
  const inner = part.slice(1, -1);
  const equals = inner.indexOf('=');
  return equals < 0 ? undefined : { field: inner.slice(0, equals), value: inner.slice(equals + 1) };
}

/** kyaml's PathGetter for the source: exact `[field=value]` matching, the first match, `-` for the last item. */
function lookupSourceField(
  obj: JsonObject,
  parts: readonly string[],
  failPath: (problem: string) => never,
): JsonValue | undefined {
  let node: JsonValue | undefined = obj;
  for (const part of parts.map((raw) => raw.trim()).filter((trimmed) => trimmed !== '')) {
    if (node === undefined || node === null) return undefined;
    if (/^[-+]?\d+$/.test(part) || part === '-') {
      if (!Array.isArray(node)) return undefined;
      node = part === '-' ? node[node.length - 1] : node[Number(part)];
    } else if (isListPart(part)) {
      const selector = splitListPart(part) ?? failPath(`'${part}' must be [field=value]`);
      if (!Array.isArray(node)) return undefined;
      node = node.find((item) =>
        selector.field === ''
          ? scalarText(item) === selector.value
          : isJsonObject(item) && scalarText(item[selector.field]) === selector.value,
      );
    } else {
      node = isJsonObject(node) ? node[part] : undefined;
    }
  }
  return node;
}
