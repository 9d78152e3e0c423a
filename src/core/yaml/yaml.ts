import type * as Yaml from 'yaml';
import type { CollectionTag, Document, Node, Scalar, ScalarTag, Tags } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { loadOnUse } from '../load-on-use.ts';
import { ParseError } from '../errors.ts';
import { loadPlainYaml, mayEndInBlockScalar, type DollarScalar } from './yaml-fast-load.ts';
import { GO_YAML_RULES } from './go-yaml-rules.ts';
import { resolvePlainScalar, resolveTaggedScalar } from './plain-scalar.ts';
import { printBlockDocument } from './yaml-block-printer.ts';
import { isYaml11NonString } from './go-yaml-scalar.ts';
import { expandVars, VarTypeError, type VarLookup } from '../var-expansion.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { markImplicitNull } from './implicit-null.ts';
import type { YamlDocument } from './yaml-document.ts';

export type { YamlDocument } from './yaml-document.ts';

const {
  tagPrefix: TAG_PREFIX,
  mergeKey: MERGE_KEY,
  v3: { explicitTypes: EXPLICIT_TYPES },
} = GO_YAML_RULES;

/**
 * The `yaml` library, loaded when a text first needs it: the js-yaml fast path and the block
 * printer do most files without it, and loading it is a good part of a small build's time.
 */
const yamlLibrary = loadOnUse('yaml') as () => typeof Yaml;

export interface YamlParseOptions {
  /**
   * `last-wins` for kustomization files, which kustomize reads with sigs.k8s.io/yaml and where a
   * repeated key replaces the earlier one; resources are refused with a duplicate key, as kustomize's
   * kyaml and the API server refuse them.
   */
  readonly duplicateKeys?: 'refuse' | 'last-wins';
  /** How many lines precede `text` in its file, for the lines reported (a document of a stream). */
  readonly lineOffset?: number;
}

/** How deep YAML may nest: far beyond any manifest, well below what would exhaust the stack. */
export const MAX_YAML_DEPTH = 500;

/** How many nodes aliases may expand to in one document, against alias bombs. */
export const MAX_YAML_ALIAS_COUNT = 10_000;

const YAML_LIMITS = { depth: MAX_YAML_DEPTH, aliases: MAX_YAML_ALIAS_COUNT };

/**
 * Parses a YAML stream. Empty documents are dropped. A duplicate mapping key is an error, as in
 * kustomize (go-yaml v3) and the API server, unless `options` say otherwise. Nesting deeper than MAX_YAML_DEPTH and aliases that
 * expand past MAX_YAML_ALIAS_COUNT nodes are refused as such. `file` names the source in errors.
 */
export function parseYamlDocuments(
  text: string,
  file: string,
  expansion?: YamlExpansion,
  options: YamlParseOptions = {},
): YamlDocument[] {
  const baseLine = options.lineOffset ?? 0;
  refuseControlCharacters(text, file, baseLine);
  const fast = (part: string, lineOffset: number): YamlDocument[] | undefined => {
    const dollars: DollarScalar[] | undefined =
      expansion !== undefined && part.includes('$') ? [] : undefined;
    const loaded = loadPlainYaml(part, options.duplicateKeys === 'last-wins', YAML_LIMITS, dollars);
    if (loaded === undefined) return undefined;
    if (!Array.isArray(loaded)) throw duplicateKey(file, loaded.duplicateKeyLine + lineOffset);
    const documents = loaded.map((document) => ({ ...document, line: document.line + lineOffset }));
    if (dollars === undefined || expansion === undefined) return documents;
    return expandPlainDocuments(documents, dollars, expansion, file, lineOffset);
  };
  const loaded = fast(text, baseLine);
  if (loaded !== undefined) return loaded;
  const parts = splitDocuments(text);
  if (parts.length < 2) return parseWithLibrary(text, file, expansion, options);
  // Only the documents that need the library go to it: it is several times slower than js-yaml.
  return parts.flatMap(({ text: part, lineOffset }) => {
    const documents = fast(part, baseLine + lineOffset);
    return (
      documents ?? parseWithLibrary(part, file, expansion, { ...options, lineOffset: baseLine + lineOffset })
    );
  });
}

/** Thrown inside expandPlainDocuments when its walk and the strings js-yaml reported part ways. */
class WalkMismatch extends Error {}

/** Keys that JavaScript objects keep first whatever their place in the text: a walk would meet them out of order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * expandDocument for what js-yaml read: walks the documents in text order, meeting each string
 * that holds a `$` as `dollars` reported it (keys are not expanded), and expands values as the
 * library's path does. Undefined, for the library to do it, should the walk meet a string
 * `dollars` does not have next (an array-index key, a repeated key in a kustomization).
 */
function expandPlainDocuments(
  documents: YamlDocument[],
  dollars: readonly DollarScalar[],
  expansion: YamlExpansion,
  file: string,
  lineOffset: number,
): YamlDocument[] | undefined {
  let next = 0;
  const take = (value: string): DollarScalar => {
    const found = dollars[next];
    if (found?.value !== value) throw new WalkMismatch();
    next++;
    return found;
  };
  const visit = (value: JsonValue, expand: boolean): JsonValue => {
    if (typeof value === 'string') {
      if (!value.includes('$')) return value;
      const scalar = take(value);
      return expand ? expandScalar(scalar, expansion, file, scalar.line + lineOffset) : value;
    }
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) value[index] = visit(item, expand);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (ARRAY_INDEX.test(key)) throw new WalkMismatch();
        if (key.includes('$')) take(key);
        value[key] = visit(value[key] ?? null, expand);
      }
    }
    return value;
  };
  try {
    const out = documents.map((document) => ({
      ...document,
      value: visit(document.value, !expansionTurnedOff(document.value)),
    }));
    return next === dollars.length ? out : undefined;
  } catch (error: unknown) {
    if (error instanceof WalkMismatch) return undefined;
    throw error;
  }
}

function expansionTurnedOff(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const metadata = value.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return false;
  const annotations = metadata.annotations;
  if (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations)) return false;
  const flag = annotations[EXPAND_VARS_ANNOTATION];
  return flag === false || flag === 'false';
}

/** One string scalar expanded: a plain one that is one reference takes the value, other scalars stay strings. */
function expandScalar(
  scalar: Pick<DollarScalar, 'value' | 'plain'>,
  expansion: YamlExpansion,
  file: string,
  line: number,
): JsonValue {
  const where = `${file}:${String(line)}`;
  let result: ReturnType<typeof expandVars>;
  try {
    result = expandVars(scalar.value, expansion.lookup);
  } catch (error: unknown) {
    if (error instanceof VarTypeError) throw new VarTypeError(error.reference, where);
    throw error;
  }
  for (const name of result.unresolved) expansion.onUnresolved(name, file, line);
  if (typeof result.value === 'string' || scalar.plain) return result.value;
  if (result.value !== null && typeof result.value === 'object')
    throw new VarTypeError(result.resolved[0] ?? '', where);
  return String(result.value);
}

/**
 * Characters YAML does not allow in a stream (outside its c-printable set): the C0 controls but tab,
 * line feed and carriage return, DEL, the C1 controls but NEL, U+FFFE and U+FFFF. kustomize's
 * go-yaml refuses them too; a string holds one through an escape (`"a\0b"`).
 */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const FORBIDDEN_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F\uFFFE\uFFFF]/;

function refuseControlCharacters(text: string, file: string, lineOffset: number): void {
  const found = FORBIDDEN_CHARACTER.exec(text);
  if (found === null) return;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  const line = lineOffset + countLines(text.slice(0, found.index)) + 1;
  throw new ParseError(file, line, `holds the control character U+${code}, which YAML does not allow`, {
    hint: 'Remove it; a string may hold one as an escape in double quotes ("\\0", "\\x01").',
  });
}

/**
 * A stream cut before each `---` line, with the lines before each part. A document marker at the
 * start of a line ends any scalar (YAML 1.2 c-forbidden), so a cut never falls inside a node;
 * with a directive (`%`) the stream stays whole.
 */
function splitDocuments(text: string): { text: string; lineOffset: number }[] {
  if (/^%/m.test(text)) return [{ text, lineOffset: 0 }];
  const parts: { text: string; lineOffset: number }[] = [];
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  let start = 0;
  let lineOffset = 0;
  for (let match = marker.exec(text); match !== null; match = marker.exec(text)) {
    if (match.index === 0) continue;
    const part = text.slice(start, match.index);
    parts.push({ text: part, lineOffset });
    lineOffset += countLines(part);
    start = match.index;
  }
  parts.push({ text: text.slice(start), lineOffset });
  return parts;
}

function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/**
 * parseYamlDocuments through the `yaml` library's document model: for everything the js-yaml fast
 * path leaves (yaml-fast-load.ts), for `$(var)` expansion, which needs each scalar's style, and
 * for every error message.
 */
export function parseWithLibrary(
  text: string,
  file: string,
  expansion?: YamlExpansion,
  options: YamlParseOptions = {},
): YamlDocument[] {
  const { LineCounter, parseAllDocuments } = yamlLibrary();
  const lineCounter = new LineCounter();
  const offset = options.lineOffset ?? 0;
  const lineAt = (position: number): number => lineCounter.linePos(position).line + offset;
  const uniqueKeys = options.duplicateKeys !== 'last-wins';
  // The library's own uniqueKeys check compares each key with every earlier one of its map, which
  // takes time quadratic in a map's size; checkNodes does it with a Set instead.
  const documents = parseAllDocuments(text, {
    uniqueKeys: false,
    merge: true,
    lineCounter,
    prettyErrors: false,
    customTags: withGoYamlTyping,
  });
  const out: YamlDocument[] = [];
  for (const doc of documents) {
    const error = doc.errors[0];
    if (error) {
      const line = lineAt(error.pos[0]);
      if (error.message.includes('Maximum call stack')) throw tooDeep(file, line, error);
      throw new ParseError(file, line, firstLine(error.message), { cause: error });
    }
    if (doc.contents === null) continue;
    const line = lineAt(nodeStart(doc.contents));
    checkNodes(doc, file, line, (node) => lineAt(nodeStart(node)), uniqueKeys);
    if (mayEndInBlockScalar(text)) clipLastBlockScalar(doc, text.length);
    if (expansion && text.includes('$'))
      expandDocument(doc, expansion, (node) => lineAt(nodeStart(node)), file);
    const value = toJson(doc, file, line);
    if (value === undefined || value === null) continue;
    out.push({ value, line });
  }
  return out;
}

/** Removes the line break the library added to a block scalar that ends the text. */
function clipLastBlockScalar(doc: Document.Parsed, textLength: number): void {
  yamlLibrary().visit(doc, {
    Scalar(_key, node) {
      const isBlock = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      if (!isBlock || node.range?.[1] !== textLength || typeof node.value !== 'string') return;
      if (node.value.endsWith('\n')) node.value = node.value.slice(0, -1);
    },
  });
}

/** A RegExp whose test is go-yaml v3's: the `yaml` library asks a tag's `test` which plain scalars are its own. */
class GoYamlPlainTest extends RegExp {
  override test(text: string): boolean {
    return resolvePlainScalar(text) !== undefined;
  }
}

/**
 * Plain scalars typed as kustomize types them (plain-scalar.ts, by GO_YAML_RULES). An infinity or NaN
 * is refused, as kustomize refuses it when it writes the object as JSON.
 */
const GO_YAML_PLAIN: ScalarTag = {
  tag: `${TAG_PREFIX}plain`,
  default: true,
  test: new GoYamlPlainTest(''),
  resolve(text, onError) {
    const resolved = resolvePlainScalar(text);
    if (resolved === undefined) return text;
    if ('value' in resolved) return resolved.value;
    onError(`'${text}' is not a number JSON can hold. Quote it to mean the string`);
    return text;
  },
};

/** The tag of merge keys, a plain `<<` (docs/architecture.md "YAML"). */
const MERGE_TAG = `${TAG_PREFIX}merge`;

/**
 * `!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp` and `!!binary` as go-yaml reads them
 * (resolveTaggedScalar). The library takes the first tag of a name for an explicit tag, which for
 * `!!int` would be its octal one; its own timestamp and binary would give a Date and bytes.
 */
const GO_YAML_EXPLICIT: ScalarTag[] = EXPLICIT_TYPES.map<ScalarTag>((type) => ({
  tag: `${TAG_PREFIX}${type}`,
  default: false,
  resolve(text, onError) {
    const value = resolveTaggedScalar(type, text);
    if (value !== undefined) return value;
    const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    const quoted = `'${shown.replace(/\r?\n/g, '\\n')}'`;
    onError(
      type === 'binary'
        ? `${quoted} is not base64 for !!binary: write it padded with '=', or remove the tag`
        : `${quoted} is not a !!${type}: remove the tag or write the value as one`,
    );
    return text;
  },
})).concat({
  // `!!merge` given explicitly keeps the text (the library's own would make any text the key `<<`):
  // go-yaml merges only at a key `<<`, which checkNodes and the library still see as one.
  tag: MERGE_TAG,
  default: false,
  resolve: (text) => text,
});

/**
 * go-yaml v3 reads a collection by its kind whatever its tag: `!!set`, `!!omap` and `!!pairs` are
 * an ordinary map and lists, not the library's Set and Map, which JSON cannot hold.
 */
const GO_YAML_COLLECTIONS: CollectionTag[] = [
  { tag: `${TAG_PREFIX}set`, collection: 'map', default: false },
  { tag: `${TAG_PREFIX}omap`, collection: 'seq', default: false },
  { tag: `${TAG_PREFIX}pairs`, collection: 'seq', default: false },
];

/** The schema's own implicit scalar types give way to GO_YAML_PLAIN, its explicit ones to GO_YAML_EXPLICIT. */
function withGoYamlTyping(tags: Tags): Tags {
  const explicitOnly = tags.map((tag) =>
    typeof tag === 'object' && 'test' in tag && tag.test !== undefined && tag.tag !== MERGE_TAG
      ? { ...tag, default: false }
      : tag,
  );
  return [GO_YAML_PLAIN, ...GO_YAML_EXPLICIT, ...GO_YAML_COLLECTIONS, ...explicitOnly];
}

/** What a value written as nothing (`key:`) holds until normalize marks its field (implicit-null.ts). */
const IMPLICIT_NULL = Object.freeze({ implicitNull: true });

function markNoValueScalars(doc: Document.Parsed): void {
  yamlLibrary().visit(doc, {
    Scalar(key, node) {
      if (key !== 'key' && node.value === null && node.source === '') node.value = IMPLICIT_NULL;
    },
  });
}

/** The document's value; an alias bomb or a stack overflow is a ParseError that says which. */
function toJson(doc: Document.Parsed, file: string, line: number): JsonValue | undefined {
  markNoValueScalars(doc);
  try {
    const value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT }) as unknown;
    return value === undefined ? undefined : normalize(value);
  } catch (error: unknown) {
    // checkNodes refuses a merge of what is not a map first; this is the library's own check.
    if (error instanceof Error && error.message.startsWith('Merge sources must be maps'))
      throw badMerge(file, line);
    if (error instanceof ReferenceError && /alias/i.test(error.message))
      throw new ParseError(
        file,
        line,
        `its aliases expand to more than ${String(MAX_YAML_ALIAS_COUNT)} nodes`,
        {
          cause: error,
          hint: 'Write the repeated content out, or use fewer aliases of large nodes (this looks like an alias bomb).',
        },
      );
    throw error;
  }
}

function tooDeep(file: string, line: number, cause?: unknown): ParseError {
  return new ParseError(file, line, `the document nests deeper than ${String(MAX_YAML_DEPTH)} levels`, {
    cause,
    hint: `kaddon reads YAML nested at most ${String(MAX_YAML_DEPTH)} levels deep: flatten the document.`,
  });
}

/**
 * Refuses nesting past MAX_YAML_DEPTH, walking with a stack of its own so depth cannot overflow it,
 * a key that is a collection, a merge of what is not a map, and with `uniqueKeys` a mapping key
 * defined twice (scalar keys of equal value, as the library's uniqueKeys compares them), in time
 * linear in the document; `lineOf` gives the line each refusal names.
 */
function checkNodes(
  doc: Document.Parsed,
  file: string,
  line: number,
  lineOf: (node: Node) => number,
  uniqueKeys: boolean,
): void {
  const { isCollection, isMap, isPair, isScalar } = yamlLibrary();
  const pending: [unknown, number][] = [[doc.contents, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > MAX_YAML_DEPTH) throw tooDeep(file, line);
    if (!isCollection(node)) continue;
    const keys = uniqueKeys && isMap(node) ? new Set<unknown>() : undefined;
    for (const item of node.items) {
      if (!isPair(item)) {
        pending.push([item, depth + 1]);
        continue;
      }
      if (isCollectionKey(doc, item.key)) throw collectionKey(file, lineOf(item.key as Node));
      if (isScalar(item.key)) {
        const merge = settleMergeKey(item.key);
        if (merge && !mergesMaps(doc, item.value)) throw badMerge(file, lineOf(item.key));
        const key = merge ? MERGE_TAG : item.key.value;
        if (keys?.has(key)) throw duplicateKey(file, lineOf(item.key));
        keys?.add(key);
      }
      pending.push([item.key, depth + 1], [item.value, depth + 1]);
    }
  }
}

/**
 * Whether a key merges, as kustomize takes it, with the library's node made to agree: a plain `<<`
 * (each one's value a Symbol of its own, so two are compared as one key) or any key tagged
 * `!!merge`, which is made a plain `<<`. A `<<` tagged otherwise (`!!str <<`) is a string, and is
 * made a quoted one, which the library does not merge.
 */
function settleMergeKey(key: Scalar): boolean {
  if (typeof key.value === 'symbol') return true;
  if (key.tag === MERGE_TAG) {
    key.value = MERGE_KEY;
    key.type = 'PLAIN';
    return true;
  }
  if (key.value === MERGE_KEY && (key.type === undefined || key.type === 'PLAIN')) key.type = 'QUOTE_DOUBLE';
  return false;
}

/** A key that is a map or a list (`[a, b]: c`, `? {a: 1}`), or an alias of one. */
function isCollectionKey(doc: Document.Parsed, key: unknown): boolean {
  const { isAlias, isCollection } = yamlLibrary();
  return isCollection(isAlias(key) ? key.resolve(doc) : key);
}

function collectionKey(file: string, line: number): ParseError {
  return new ParseError(file, line, 'a mapping key is a map or a list', {
    hint: 'Write the key as a string: JSON, kustomize and the API server take no other keys.',
  });
}

/** A merge key's value is a map, an alias of one, or a list of those (go-yaml v3's rule). */
function mergesMaps(doc: Document.Parsed, value: unknown): boolean {
  const { isAlias, isMap, isSeq } = yamlLibrary();
  const isMapSource = (node: unknown): boolean => isMap(isAlias(node) ? node.resolve(doc) : node);
  return isSeq(value) ? value.items.every(isMapSource) : isMapSource(value);
}

function badMerge(file: string, line: number): ParseError {
  return new ParseError(file, line, 'the value of the merge key `<<` is neither a map nor a list of maps', {
    hint: 'Give `<<` an alias of a map (`<<: *defaults`), a map, or a list of them; quote the key ("<<") to mean the string.',
  });
}

function duplicateKey(file: string, line: number): ParseError {
  return new ParseError(file, line, 'a mapping key is defined twice', {
    hint: 'Remove one of them: kustomize and the API server refuse duplicate keys.',
  });
}

/** How `$(var)` references in a module's YAML are expanded while it is parsed (docs/architecture.md). */
export interface YamlExpansion {
  readonly lookup: VarLookup;
  /** Called for each reference left verbatim, with where it stands. */
  readonly onUnresolved: (name: string, file: string, line: number) => void;
}

/** A document whose metadata has this annotation set to "false" is not expanded. */
const EXPAND_VARS_ANNOTATION = 'kaddon.io/expand-vars';

/**
 * Expands the string values of one document. A plain scalar that is exactly one reference takes the value
 * itself, with its type; a quoted or block scalar stays a string (docs/architecture.md "$(var) expansion").
 */
function expandDocument(
  doc: Document.Parsed,
  expansion: YamlExpansion,
  lineOf: (node: Node) => number,
  file: string,
): void {
  if (String(doc.getIn(['metadata', 'annotations', EXPAND_VARS_ANNOTATION])) === 'false') return;
  const { visit } = yamlLibrary();
  // The library visits a node that replaces another; a substituted value is never expanded again.
  const substituted = new WeakSet<Node>();
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || substituted.has(node)) return undefined;
      if (typeof node.value !== 'string' || !node.value.includes('$')) return undefined;
      const value = expandScalar(
        { value: node.value, plain: node.type === 'PLAIN' },
        expansion,
        file,
        lineOf(node),
      );
      if (typeof value === 'string') {
        node.value = value;
        return undefined;
      }
      // Only a plain scalar that is one reference takes a value of another type.
      const replacement = doc.createNode(value);
      visit(replacement, { Scalar: (_key, inner) => void substituted.add(inner) });
      return replacement;
    },
  });
}

function nodeStart(node: Node): number {
  return node.range?.[0] ?? 0;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** The library's value as JSON (a bigint as a number; timestamps and binary are strings already, GO_YAML_EXPLICIT). */
function normalize(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value === IMPLICIT_NULL) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = normalize(v);
      if (v === IMPLICIT_NULL) markImplicitNull(out, k);
    }
    return out;
  }
  throw new TypeError(`YAML produced a value JSON cannot hold: ${typeof value}`);
}

/** Parses a single-document YAML text (a kustomization, a config file). */
export function parseYamlDocument(
  text: string,
  file: string,
  expansion?: YamlExpansion,
  options?: YamlParseOptions,
): JsonValue | undefined {
  return parseYamlDocuments(text, file, expansion, options)[0]?.value;
}

/**
 * Serializes objects as a `---`-separated stream the way kustomize (go-yaml v2) prints them: keys
 * sorted, block style, strings a YAML 1.1 reader would take for another type in double quotes,
 * other strings that cannot stand plain in single quotes.
 */
export function stringifyYamlStream(objects: readonly JsonValue[]): string {
  return objects.map((obj) => stringifyYaml(obj)).join('---\n');
}

export function stringifyYaml(value: JsonValue): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const printed = printBlockDocument(value);
    if (printed !== undefined) return printed;
  }
  return stringifyReadably(value);
}

/**
 * The `yaml` library's printing, checked: it can fold a string into a block scalar that reads back
 * as another string (docs/yaml-library-folding-bug.md). What does not read back the same is printed
 * again with every multi-line string double-quoted with JSON escapes and nothing folded, and, should
 * that fail too, as JSON, which YAML reads as it is.
 */
function stringifyReadably(value: JsonValue): string {
  const printed = stringifyWithLibrary(value);
  if (readsBack(printed, value)) return printed;
  const unfolded = stringifyWithLibrary(value, true);
  return readsBack(unfolded, value) ? unfolded : `${JSON.stringify(value)}\n`;
}

function readsBack(printed: string, value: JsonValue): boolean {
  try {
    const read = parseYamlDocuments(printed, 'printed')[0]?.value ?? null;
    return isDeepStrictEqual(read, JSON.parse(JSON.stringify(value)));
  } catch (error: unknown) {
    if (error instanceof ParseError) return false;
    throw error;
  }
}

/** The `yaml` library's printing in kustomize's style; the reference that printBlockDocument follows. */
export function stringifyWithLibrary(value: unknown, unfolded = false): string {
  const { Document, visit } = yamlLibrary();
  const doc = new Document(value, {
    version: '1.1',
    // Its merge tag would print a key `<<` plain whatever its style, to read back as a merge key.
    customTags: (tags) => tags.filter((tag) => typeof tag !== 'object' || tag.tag !== MERGE_TAG),
    aliasDuplicateObjects: false,
    sortMapEntries: true,
  });
  visit(doc, {
    Scalar(key, node) {
      if (typeof node.value !== 'string') return;
      const mergeKey = key === 'key' && node.value === MERGE_KEY;
      if (mergeKey || isYaml11NonString(node.value) || (unfolded && node.value.includes('\n')))
        node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({
    lineWidth: unfolded ? 0 : 80,
    doubleQuotedAsJSON: unfolded,
    minContentWidth: 0,
    indentSeq: false,
    singleQuote: true,
    defaultKeyType: 'PLAIN',
  });
}
