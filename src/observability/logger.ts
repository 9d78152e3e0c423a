/**
 * Log levels as addon-operator's LOG_LEVEL names them (the settings table in README.md), least severe
 * first, with `warn` for what kaddon keeps going through but an operator should see (a missing input
 * left in force, deletions held).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * LOG_TYPE values (the settings table in README.md). `color` is accepted and written as `text`: kaddon prints
 * no colours.
 */
export const LOG_TYPES = ['json', 'text', 'color'] as const;
export type LogType = (typeof LOG_TYPES)[number];

type LogFieldValue = string | number | boolean | null | undefined;

/**
 * Structured fields of a log line. The named ones are stable across the code base so that log
 * queries keep working; `undefined` values are left out of the output.
 */
interface LogFields {
  readonly module?: string | undefined;
  readonly hook?: string | undefined;
  readonly binding?: string | undefined;
  readonly queue?: string | undefined;
  readonly task?: string | undefined;
  readonly output?: 'stdout' | 'stderr' | undefined;
  readonly [field: string]: LogFieldValue;
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line; the child's own fields win over the parent's. */
  child(fields: LogFields): Logger;
}

/** Where lines go: process.stderr, a file stream, or anything with a `write`. */
interface LogSink {
  write(chunk: string): unknown;
}

export interface LoggerOptions {
  readonly type: LogType;
  readonly level: LogLevel;
  /** LOG_NO_TIME: leave the timestamp out when the log collector adds its own. */
  readonly noTime: boolean;
  readonly sink: LogSink;
  readonly now?: () => Date;
  /** Applied to the message and every text field: secret values become `***` (core/secret-mask.ts). */
  readonly mask?: (text: string) => string;
}

type Format = (level: LogLevel, time: string | undefined, msg: string, fields: LogFields) => string;

/** Keys a field may not take over in an output line; a clashing field is written as `fields.<key>`. */
const RESERVED = new Set(['level', 'time', 'msg']);

function isLevelEnabled(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** A logger writing one line per entry: JSON objects for `json`, logfmt-style `key=value` for `text`. */
export function createLogger(options: LoggerOptions): Logger {
  const format: Format = options.type === 'json' ? formatJson : formatText;
  const now = options.now ?? (() => new Date());
  const mask = options.mask;
  const write = (level: LogLevel, msg: string, fields: LogFields): void => {
    if (!isLevelEnabled(options.level, level)) return;
    const time = options.noTime ? undefined : now().toISOString();
    const line = mask
      ? format(level, time, mask(msg), maskedFields(fields, mask))
      : format(level, time, msg, fields);
    options.sink.write(`${line}\n`);
  };
  return bindLogger(write, {});
}

interface CapturedLogEntry {
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields: Readonly<Record<string, LogFieldValue>>;
}

export interface CapturingLogger extends Logger {
  /** Every entry at or above the level, in order, with the child fields merged in. */
  readonly entries: CapturedLogEntry[];
}

/** A logger for tests: keeps the entries in memory instead of writing them. */
export function createCapturingLogger(level: LogLevel = 'debug'): CapturingLogger {
  const entries: CapturedLogEntry[] = [];
  const write = (entryLevel: LogLevel, msg: string, fields: LogFields): void => {
    if (isLevelEnabled(level, entryLevel))
      entries.push({ level: entryLevel, msg, fields: definedFields(fields) });
  };
  return Object.assign(bindLogger(write, {}), { entries });
}

function bindLogger(
  write: (level: LogLevel, msg: string, fields: LogFields) => void,
  base: LogFields,
): Logger {
  const merged = (fields: LogFields | undefined): LogFields => (fields ? { ...base, ...fields } : base);
  return {
    debug: (msg, fields) => {
      write('debug', msg, merged(fields));
    },
    info: (msg, fields) => {
      write('info', msg, merged(fields));
    },
    warn: (msg, fields) => {
      write('warn', msg, merged(fields));
    },
    error: (msg, fields) => {
      write('error', msg, merged(fields));
    },
    child: (fields) => bindLogger(write, merged(fields)),
  };
}

function definedFields(fields: LogFields): Record<string, LogFieldValue> {
  const out: Record<string, LogFieldValue> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) out[RESERVED.has(key) ? `fields.${key}` : key] = value;
  }
  return out;
}

function formatJson(level: LogLevel, time: string | undefined, msg: string, fields: LogFields): string {
  return JSON.stringify({ level, ...(time === undefined ? {} : { time }), msg, ...definedFields(fields) });
}

function formatText(level: LogLevel, time: string | undefined, msg: string, fields: LogFields): string {
  const pairs: [string, LogFieldValue][] = [
    ...(time === undefined ? [] : [['time', time] as [string, string]]),
    ['level', level],
    ['msg', msg],
    ...Object.entries(definedFields(fields)),
  ];
  return pairs.map(([key, value]) => `${key}=${formatTextValue(value)}`).join(' ');
}

/** Quotes a value only when it would be ambiguous unquoted; JSON escaping keeps the entry on one line. */
function formatTextValue(value: LogFieldValue): string {
  const text = String(value);
  return /^[\x21\x23-\x3c\x3e-\x5b\x5d-\x7e]+$/u.test(text) ? text : JSON.stringify(text);
}

function maskedFields(fields: LogFields, mask: (text: string) => string): LogFields {
  const out: Record<string, LogFieldValue> = {};
  for (const [key, value] of Object.entries(fields))
    out[key] = typeof value === 'string' ? mask(value) : value;
  return out;
}
