import { Document, LineCounter, parseAllDocuments, visit, type Node } from 'yaml';
import { ParseError } from './errors.ts';
import type { JsonObject, JsonValue } from './json.ts';

/** A parsed YAML document with the line it starts on. */
export interface YamlDocument {
  readonly value: JsonValue;
  readonly line: number;
}

/**
 * Parses a YAML stream. Empty documents are dropped. Duplicate keys are tolerated with the last one
 * winning, as sigs.k8s.io/yaml does. `file` names the source in errors.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { uniqueKeys: false, lineCounter, prettyErrors: false });
  const out: YamlDocument[] = [];
  for (const doc of documents) {
    const error = doc.errors[0];
    if (error) {
      const line = lineCounter.linePos(error.pos[0]).line;
      throw new ParseError(file, line, firstLine(error.message), { cause: error });
    }
    if (doc.contents === null) continue;
    const value = doc.toJS({ maxAliasCount: 10_000 }) as JsonValue | undefined;
    if (value === undefined || value === null) continue;
    out.push({ value: normalize(value), line: lineCounter.linePos(nodeStart(doc.contents)).line });
  }
  return out;
}

function nodeStart(node: Node): number {
  return node.range?.[0] ?? 0;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** YAML timestamps, binary and bigint scalars are kept as their JSON forms. */
function normalize(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(normalize);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalize(v);
    return out;
  }
  throw new TypeError(`YAML produced a value JSON cannot hold: ${typeof value}`);
}

/** Parses a single-document YAML text (a kustomization, a config file). */
export function parseYamlDocument(text: string, file: string): JsonValue | undefined {
  return parseYamlDocuments(text, file)[0]?.value;
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
  const doc = new Document(value, { version: '1.1', aliasDuplicateObjects: false, sortMapEntries: true });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && isYaml11NonString(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({
    lineWidth: 80,
    minContentWidth: 0,
    indentSeq: false,
    singleQuote: true,
    defaultKeyType: 'PLAIN',
  });
}

const YAML11_NON_STRING = new RegExp(
  [
    '|~|null|Null|NULL',
    'y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF',
    '[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+',
    '[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)',
    '[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)',
    '\\d{4}-\\d\\d?-\\d\\d?(?:(?:[Tt]|[ \\t]+)\\d\\d?:\\d\\d:\\d\\d(?:\\.\\d*)?(?:[ \\t]*(?:Z|[-+]\\d\\d?(?::\\d\\d)?))?)?',
    '<<|=',
  ]
    .map((alternatives) => `(?:${alternatives})`)
    .join('|')
    .replace(/^/, '^(?:')
    .concat(')$'),
);

/** True for strings go-yaml v2 double-quotes because unquoted they would read as another type. */
function isYaml11NonString(text: string): boolean {
  return text.length < 64 && YAML11_NON_STRING.test(text);
}
