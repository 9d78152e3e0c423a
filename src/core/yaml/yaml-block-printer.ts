import type { JsonObject, JsonValue } from '../json.ts';
import { compareKeys, printKey, printNumber, printValue } from './go-yaml-scalar.ts';

/**
 * Prints a JSON object as block-style YAML the way kustomize prints it (go-yaml v2 through
 * sigs.k8s.io/yaml): keys in go-yaml v2's order, sequences not indented under their key, each
 * scalar in the style and with the line breaks go-yaml v2's emitter gives it (go-yaml-scalar.ts).
 * Returns undefined for what it leaves to the `yaml` library: an empty object, a number JSON
 * cannot hold, a key go-yaml v2 would write as an explicit `? key`.
 */
export function printBlockDocument(value: JsonObject): string | undefined {
  const lines: string[] = [];
  if (Object.keys(value).length === 0) return undefined;
  return printMap(value, '', lines) ? `${lines.join('\n')}\n` : undefined;
}

function printMap(map: JsonObject, indent: string, lines: string[]): boolean {
  for (const key of Object.keys(map).sort(compareKeys)) {
    const value = map[key];
    if (value === undefined) continue; // as JSON leaves such keys out
    const keyText = printKey(key);
    if (keyText === undefined) return false;
    if (!printEntry(value, `${indent}${keyText}:`, indent, lines)) return false;
  }
  return true;
}

function printSequence(items: readonly JsonValue[], indent: string, lines: string[]): boolean {
  for (const item of items) {
    if (!printEntry(item, `${indent}-`, indent, lines, true)) return false;
  }
  return true;
}

/**
 * Prints one map value or sequence item after `head`. A nested collection starts on the next line,
 * except a sequence item's, whose first line shares the `- `. A scalar's continuation lines are
 * indented two spaces past `indent`.
 */
function printEntry(
  value: JsonValue,
  head: string,
  indent: string,
  lines: string[],
  inSequence = false,
): boolean {
  if (value === null || typeof value !== 'object') {
    const text = scalarText(value, head.length, indent.length + 2);
    if (text === undefined) return false;
    lines.push(`${head}${text}`);
    return true;
  }
  const isList = Array.isArray(value);
  const empty = isList ? value.length === 0 : Object.keys(value).length === 0;
  if (empty) {
    lines.push(`${head} ${isList ? '[]' : '{}'}`);
    return true;
  }
  // A sequence under a key is not indented (kustomize's style); anything else nests two spaces.
  const inner = isList && !inSequence ? indent : `${indent}  `;
  if (!inSequence) lines.push(head);
  const first = lines.length;
  const printed = isList ? printSequence(value, inner, lines) : printMap(value, inner, lines);
  if (!printed) return false;
  if (inSequence) lines[first] = `${head} ${(lines[first] ?? '').slice(inner.length)}`;
  return true;
}

/** A scalar after a key or dash ending at `column`, with its separating space. */
function scalarText(
  value: string | number | boolean | null,
  column: number,
  indent: number,
): string | undefined {
  if (typeof value === 'string') return printValue(value, column, indent);
  if (typeof value !== 'number') return ` ${String(value)}`;
  const text = printNumber(value);
  return text === undefined ? undefined : ` ${text}`;
}
