import { LineCounter, parseAllDocuments } from 'yaml';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import {
  describeHook,
  HookConfigError,
  type ConfigVersion,
  type HookIdentity,
  type ParsedHookConfig,
} from '../hook-config.ts';
import { ConfigObject, typeName, type FailAt } from './hook-config-reader.ts';
import { parseConfigV0 } from './parse-hook-config-v0.ts';
import { parseConfigV1 } from './parse-hook-config-v1.ts';

export interface ParseHookConfigOptions {
  /** When given, every jqFilter is compiled, as shell-operator compiles them at load. */
  readonly jq?: JqEngine;
}

const HINT =
  "Fix what the hook prints for --config; docs/hooks.md 'Bindings' lists the bindings and their fields.";

/**
 * Reads what `hook --config` printed (JSON or YAML, docs/hooks.md) into a validated HookConfig: the config
 * version decides the format (docs/hooks.md "Configuration versions"), then every binding is checked for the
 * hook's kind (global or module) with addon-operator's defaults applied.
 */
export function parseHookConfig(
  output: string,
  hook: HookIdentity,
  options: ParseHookConfigOptions = {},
): ParsedHookConfig {
  const document = readConfigDocument(output, hook);
  const version = configVersionOf(document, hook);
  const fail: FailAt = (field, problem, hint = HINT) => {
    throw new HookConfigError('hook-config-invalid', hook, field, problem, hint);
  };
  const root = new ConfigObject(document, '', { fail, strict: true });
  const parsed =
    version === 'v1'
      ? parseConfigV1(root, hook.owner, options.jq)
      : parseConfigV0(root, hook.owner, options.jq);
  return {
    config: parsed.config,
    warnings: parsed.warnings.map((warning) => `${describeHook(hook)}: ${warning}.`),
  };
}

/**
 * The first YAML document of the output (Go's YAML decoding reads only the first). YAML 1.1, as
 * Go's decoder speaks it: `yes` and `on` are booleans.
 */
function readConfigDocument(output: string, hook: HookIdentity): JsonObject {
  if (output.trim() === '')
    throw unparsable(
      hook,
      'the hook printed nothing for --config',
      'Print the binding configuration as JSON or YAML.',
    );
  const lineCounter = new LineCounter();
  const [document] = parseAllDocuments(output, {
    version: '1.1',
    uniqueKeys: false,
    lineCounter,
    prettyErrors: false,
  });
  const error = document?.errors[0];
  if (error) {
    const line = lineCounter.linePos(error.pos[0]).line;
    const what = firstLine(error.message);
    throw unparsable(
      hook,
      `the --config output is not valid JSON or YAML (line ${line}: ${what})`,
      HINT,
      error,
    );
  }
  const value = toJson(document?.toJS({ maxAliasCount: 1000 }));
  if (!isJsonObject(value))
    throw unparsable(
      hook,
      `the --config output must be a map, not ${typeName(value)}`,
      'Print a map of bindings such as {"configVersion": "v1", "onStartup": 10}.',
    );
  return value;
}

/** No configVersion means v0; v1 is the only other version (docs/hooks.md "Configuration versions"). */
function configVersionOf(document: JsonObject, hook: HookIdentity): ConfigVersion {
  const value = document.configVersion;
  if (value === undefined) return 'v0';
  if (value === 'v1') return 'v1';
  const problem =
    typeof value === 'string'
      ? `'${value}' is not one of v1`
      : `must be the string v1, not ${typeName(value)}`;
  throw new HookConfigError(
    'hook-config-invalid',
    hook,
    'configVersion',
    problem,
    'Write configVersion: v1, or leave configVersion out for the legacy v0 format.',
  );
}

function unparsable(hook: HookIdentity, problem: string, hint: string, cause?: unknown): HookConfigError {
  return new HookConfigError('hook-config-unparsable', hook, '', problem, hint, { cause });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** YAML-only scalars (timestamps, binary) become the strings Go's YAML-to-JSON conversion gives. */
function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (value instanceof Set) return [...value].map(toJson);
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return null;
}
