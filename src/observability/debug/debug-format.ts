import type { JsonValue } from '../../core/json.ts';
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
 * to YAML.
 */
export function formatDebugOutput(output: DebugOutput, format: DebugFormat): FormattedOutput {
  if (format === 'json') {
    return { body: `${JSON.stringify(output.data)}\n`, contentType: 'application/json' };
  }
  const body = format === 'text' && output.text !== undefined ? output.text : yamlOf(output.data);
  return { body, contentType: format === 'yaml' ? 'application/yaml' : 'text/plain; charset=utf-8' };
}

function yamlOf(data: unknown): string {
  // A JSON round trip turns readonly interfaces into plain JSON and drops undefined fields.
  const value = data === undefined ? null : (JSON.parse(JSON.stringify(data)) as JsonValue);
  return stringifyYaml(value);
}
