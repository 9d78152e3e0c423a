import type { JsonValue } from '../../core/json.ts';
import { escapeForTerminal } from '../../core/untrusted-text.ts';
import { stringifyYaml } from '../../core/yaml/yaml.ts';

export const DEBUG_FORMATS = ['text', 'yaml', 'json'] as const;
export type DebugFormat = (typeof DEBUG_FORMATS)[number];

export function isDebugFormat(value: string): value is DebugFormat {
  return (DEBUG_FORMATS as readonly string[]).includes(value);
}

/** A route's answer: JSON-serializable data, and a text form where YAML is not the best one. */
export interface DebugOutput {
  readonly data: unknown;
  readonly text?: string;
}

export interface FormattedOutput {
  readonly body: string;
  readonly contentType: string;
}

/**
 * `json` is one line as Go's json.Encoder writes it (docs/observability.md "Debug socket"); `text` falls back
 * to YAML. What a hook wrote that a terminal would act on (escape sequences, C1 and bidi controls) is
 * written as `\uXXXX` escapes in each format.
 */
export function formatDebugOutput(output: DebugOutput, format: DebugFormat): FormattedOutput {
  if (format === 'json') {
    return { body: `${escapeForTerminal(JSON.stringify(output.data))}\n`, contentType: 'application/json' };
  }
  if (format === 'yaml') return { body: yamlOf(output.data), contentType: 'application/yaml' };
  const body = output.text ?? yamlOf(output.data);
  return { body: escapeForTerminal(body), contentType: 'text/plain; charset=utf-8' };
}

/**
 * YAML escapes control characters but prints bidi controls as they are; a value holding one is
 * printed as indented JSON, which YAML reads the same, with them escaped.
 */
function yamlOf(data: unknown): string {
  // A JSON round trip turns readonly interfaces into plain JSON and drops undefined fields.
  const value = data === undefined ? null : (JSON.parse(JSON.stringify(data)) as JsonValue);
  const printed = stringifyYaml(value);
  if (escapeForTerminal(printed) === printed) return printed;
  return `${escapeForTerminal(JSON.stringify(value, null, 2))}\n`;
}
