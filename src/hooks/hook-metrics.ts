import { hasUnsafeCharacters } from '../core/untrusted-text.ts';
import type { MetricOperation } from '../observability/hook-metrics-store.ts';

interface InvalidMetricLine {
  /** 1-based line where the rejected text starts. */
  readonly line: number;
  readonly reason: string;
  /** The start of the rejected text, for the log. */
  readonly excerpt: string;
}

export interface ParsedHookMetrics {
  readonly operations: MetricOperation[];
  readonly invalid: InvalidMetricLine[];
}

/**
 * Metric operations a hook writes to $METRICS_PATH (docs/hooks.md "Metrics from hooks"): one JSON object per
 * line; like addon-operator's decoder, any sequence of JSON objects is read, so an object may also span
 * lines. A group is only the one the hook wrote: addon-operator's documentation says metrics without a group
 * are never expired (the current addon-operator's default group is a DIVERGENCE kaddon does not follow).
 *
 * A bad line is reported, never thrown.
 */
export function parseHookMetrics(text: string): ParsedHookMetrics {
  const operations: MetricOperation[] = [];
  const invalid: InvalidMetricLine[] = [];
  for (const chunk of splitJsonValues(text)) {
    const excerpt = chunk.text.length > 200 ? `${chunk.text.slice(0, 200)}…` : chunk.text;
    const parsed = toOperation(chunk.text);
    if ('operation' in parsed) operations.push(parsed.operation);
    else invalid.push({ line: chunk.line, reason: parsed.problems.join('; '), excerpt });
  }
  return { operations, invalid };
}

interface JsonChunk {
  readonly line: number;
  readonly text: string;
}

/**
 * Cuts the text into top-level JSON values: an object or array runs to its matching bracket
 * (strings respected) when that gives valid JSON, anything else to the end of its line, so one
 * bad line costs one report and the lines after it are still read.
 */
function splitJsonValues(text: string): JsonChunk[] {
  const chunks: JsonChunk[] = [];
  let line = 1;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n') {
      if (char === '\n') line += 1;
      index += 1;
      continue;
    }
    const end = char === '{' || char === '[' ? valueEnd(text, index) : lineEnd(text, index);
    const chunk = text.slice(index, end);
    chunks.push({ line, text: chunk });
    line += countNewlines(chunk);
    index = end;
  }
  return chunks;
}

/** Where the object or array at `start` ends; its first line's end when it is not valid JSON across lines. */
function valueEnd(text: string, start: number): number {
  const end = matchingBracket(text, start);
  const firstLineEnd = lineEnd(text, start);
  if (end !== undefined && (end <= firstLineEnd || isJson(text.slice(start, end)))) return end;
  return firstLineEnd;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The index after the bracket that closes the one at `start`, or undefined. */
function matchingBracket(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

function lineEnd(text: string, start: number): number {
  const newline = text.indexOf('\n', start);
  return newline === -1 ? text.length : newline;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

type Parsed = { operation: MetricOperation } | { problems: string[] };

function toOperation(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problems: ['not valid JSON'] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: [`expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`] };
  }
  const fields = readFields(value as Record<string, unknown>);
  return 'problems' in fields ? fields : validate(fields.raw);
}

interface RawOperation {
  name: string;
  action: string;
  group: string;
  value: number | undefined;
  add: number | undefined;
  set: number | undefined;
  buckets: number[] | undefined;
  labels: Record<string, string>;
}

/** Reads the fields with their JSON types; null counts as absent and unknown fields are ignored, as in Go. */
function readFields(object: Record<string, unknown>): { raw: RawOperation } | { problems: string[] } {
  const problems: string[] = [];
  const string = (key: string): string => {
    const field = object[key];
    if (field === undefined || field === null) return '';
    if (typeof field === 'string') return field;
    problems.push(`'${key}' must be a string`);
    return '';
  };
  const number = (key: string): number | undefined => {
    const field = object[key];
    if (field === undefined || field === null) return undefined;
    if (typeof field === 'number' && Number.isFinite(field)) return field;
    problems.push(`'${key}' must be a finite number`);
    return undefined;
  };
  const raw: RawOperation = {
    name: string('name'),
    action: string('action'),
    group: string('group'),
    value: number('value'),
    add: number('add'),
    set: number('set'),
    buckets: readBuckets(object.buckets, problems),
    labels: readLabels(object.labels, problems),
  };
  return problems.length > 0 ? { problems } : { raw };
}

function readBuckets(field: unknown, problems: string[]): number[] | undefined {
  if (field === undefined || field === null) return undefined;
  if (!Array.isArray(field) || !field.every((bound) => typeof bound === 'number' && Number.isFinite(bound))) {
    problems.push("'buckets' must be an array of finite numbers");
    return undefined;
  }
  const bounds = field as number[];
  if (bounds.some((bound, index) => index > 0 && bound <= (bounds[index - 1] ?? bound))) {
    problems.push("'buckets' must be in increasing order");
  }
  return bounds;
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/u;
/** The longest label value a hook may write, in UTF-8 bytes (docs/hooks.md "Metrics from hooks"). */
const MAX_LABEL_VALUE_BYTES = 1024;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/u;

function readLabels(field: unknown, problems: string[]): Record<string, string> {
  if (field === undefined || field === null) return {};
  if (typeof field !== 'object' || Array.isArray(field)) {
    problems.push("'labels' must be an object of strings");
    return {};
  }
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(field)) {
    if (typeof label !== 'string') problems.push(`label '${key}' must be a string`);
    else if (!LABEL_NAME.test(key) || key.startsWith('__'))
      problems.push(`'${key.slice(0, 64)}' is not a valid label name`);
    else if (hasUnsafeCharacters(label))
      problems.push(`label '${key}' holds a control character or a lone surrogate`);
    else if (Buffer.byteLength(label) > MAX_LABEL_VALUE_BYTES)
      problems.push(`label '${key}' is longer than ${String(MAX_LABEL_VALUE_BYTES)} bytes`);
    else labels[key] = label;
  }
  return labels;
}

/** shell-operator's ValidateMetricOperation, plus what Prometheus itself would refuse later. */
function validate(raw: RawOperation): Parsed {
  if (raw.set !== undefined && raw.add !== undefined) {
    return { problems: ["'set' and 'add' are mutually exclusive"] };
  }
  // The shortcuts win over `action` and `value` (shell-operator's MetricOperationsFromReader).
  const [action, value] =
    raw.set !== undefined
      ? ['set', raw.set]
      : raw.add !== undefined
        ? ['add', raw.add]
        : [raw.action, raw.value];
  const group = raw.group === '' ? undefined : raw.group;
  const problems = [...actionProblems(action, group), ...fieldProblems(action, value, raw, group)];
  if (problems.length > 0) return { problems };
  return { operation: buildOperation(action, raw.name, value ?? 0, raw, group) };
}

function actionProblems(action: string, group: string | undefined): string[] {
  if (action === '') return ["one of 'action', 'set' or 'add' is required"];
  if (group === undefined && !['set', 'add', 'observe'].includes(action)) {
    return [`unsupported action '${action}'${action === 'expire' ? " without a 'group'" : ''}`];
  }
  if (group !== undefined && !['set', 'add', 'expire'].includes(action)) {
    // docs/hooks.md "Metrics from hooks": observe is unsupported for grouped metrics.
    return [`unsupported action '${action}'${action === 'observe' ? ' for grouped metrics' : ''}`];
  }
  return [];
}

function fieldProblems(
  action: string,
  value: number | undefined,
  raw: RawOperation,
  group: string | undefined,
): string[] {
  const problems: string[] = [];
  const { name } = raw;
  if (name === '' && (group === undefined || action !== 'expire')) problems.push("'name' is required");
  if (name !== '' && !METRIC_NAME.test(name))
    problems.push(`'${name.slice(0, 64)}' is not a valid metric name`);
  if (['set', 'add', 'observe'].includes(action) && value === undefined) {
    problems.push(`'value' is required for action '${action}'`);
  }
  if (action === 'add' && value !== undefined && value < 0) {
    problems.push('a counter cannot decrease: add a value ≥ 0');
  }
  if (action === 'observe' && raw.buckets === undefined) {
    problems.push("'buckets' is required for action 'observe'");
  }
  // A histogram's buckets are told apart by `le`: a label of that name would make them ambiguous.
  if (action === 'observe' && Object.hasOwn(raw.labels, 'le'))
    problems.push("a histogram cannot have a label 'le'");
  return problems;
}

function buildOperation(
  action: string,
  name: string,
  value: number,
  raw: RawOperation,
  group: string | undefined,
): MetricOperation {
  if (action === 'expire') return { action, group: group ?? '' };
  if (action === 'observe')
    return { action, name, value, buckets: raw.buckets ?? [], labels: raw.labels, group: undefined };
  return { action: action === 'add' ? 'add' : 'set', name, value, labels: raw.labels, group };
}
