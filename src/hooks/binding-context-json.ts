import type { BindingContext } from './binding-context.ts';

/**
 * The text of $BINDING_CONTEXT_PATH as shell-operator writes it (Go's json.MarshalIndent with two
 * spaces): map keys sorted by their bytes at every level, as Go sorts them, and `<`, `>`, `&`,
 * U+2028 and U+2029 escaped, as Go escapes them. Hooks parse JSON, so only a byte-for-byte diff
 * would notice a difference; this keeps even that away.
 */
export function formatBindingContexts(contexts: readonly BindingContext[]): string {
  return formatGoJson(contexts);
}

/** Any JSON value in the same Go form; values and config values files are written this way too. */
export function formatGoJson(value: unknown): string {
  return write(value, '').replace(/[<>&\u2028\u2029]/g, escapeChar);
}

function write(value: unknown, indent: string): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => inner + write(item, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return '{}';
  entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${write(item, inner)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
