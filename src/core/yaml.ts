import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, stringify, type Node } from 'yaml';
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
 * Serializes objects as a `---`-separated stream the way kustomize prints them: keys sorted,
 * block style, strings that YAML 1.1 readers would take for another type quoted.
 */
export function stringifyYamlStream(objects: readonly JsonValue[]): string {
  return objects.map((obj) => stringifyYaml(obj)).join('---\n');
}

export function stringifyYaml(value: JsonValue): string {
  return stringify(value, {
    sortMapEntries: true,
    lineWidth: 0,
    indentSeq: false,
    version: '1.1',
    aliasDuplicateObjects: false,
    defaultKeyType: 'PLAIN',
  });
}

export { isMap, isScalar, isSeq };
