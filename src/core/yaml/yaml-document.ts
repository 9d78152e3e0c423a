import type { JsonValue } from '../json.ts';

/** A parsed YAML document with the line it starts on. */
export interface YamlDocument {
  readonly value: JsonValue;
  readonly line: number;
}
