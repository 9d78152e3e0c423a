import { GO_DURATION_UNITS, parseGoDuration } from '../core/go-duration.ts';

/**
 * A `schedule` binding's crontab, as shell-operator reads it with robfig/cron.v2 (docs/hooks.md "schedule"):
 * five fields are a regular crontab (minute hour day-of-month month day-of-week), six fields put
 * seconds first, `@every <duration>` and the descriptors `@yearly`, `@monthly`, `@weekly`,
 * `@daily`, `@hourly` (and `@annually`, `@midnight`) are accepted, and a `TZ=<zone> ` prefix sets
 * the time zone.
 */
export type CrontabSchedule =
  | {
      readonly kind: 'fields';
      /** Six fields, seconds first: a five-field crontab gets a leading `0`. */
      readonly pattern: string;
      readonly timeZone?: string;
    }
  | {
      readonly kind: 'every';
      /** Whole seconds, at least one, as cron.v2 rounds `@every`. */
      readonly everyMs: number;
      readonly timeZone?: string;
    };

export type CrontabParse =
  | { readonly ok: true; readonly schedule: CrontabSchedule }
  | { readonly ok: false; readonly problem: string };

interface FieldRange {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const MONTH_NAMES = ['', 'jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly FieldRange[] = [
  { name: 'seconds', min: 0, max: 59 },
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 6, names: DAY_NAMES },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

export function parseCrontab(text: string): CrontabParse {
  let spec = text;
  let timeZone: string | undefined;
  if (spec.startsWith('TZ=')) {
    const space = spec.indexOf(' ');
    if (space === -1) return problem('a TZ= prefix must be followed by a space and the schedule');
    timeZone = spec.slice(3, space);
    if (!isTimeZone(timeZone)) return problem(`'${timeZone}' is not a known time zone`);
    spec = spec.slice(space).trim();
  }
  const zone = timeZone === undefined ? {} : { timeZone };
  if (spec.startsWith('@')) return parseDescriptor(spec, zone);
  const fields = spec.split(/\s+/).filter((field) => field !== '');
  if (fields.length !== 5 && fields.length !== 6)
    return problem(`expected 5 or 6 fields, found ${fields.length}`);
  const six = fields.length === 5 ? ['0', ...fields] : fields;
  for (const [i, field] of six.entries()) {
    const range = FIELDS[i];
    if (range === undefined) break;
    const fieldProblem = checkField(field, range);
    if (fieldProblem !== undefined) return problem(`${range.name} field '${field}': ${fieldProblem}`);
  }
  return { ok: true, schedule: { kind: 'fields', pattern: six.join(' '), ...zone } };
}

function parseDescriptor(spec: string, zone: { timeZone?: string }): CrontabParse {
  const pattern = DESCRIPTORS[spec];
  if (pattern !== undefined) return { ok: true, schedule: { kind: 'fields', pattern, ...zone } };
  if (!spec.startsWith('@every ')) return problem(`'${spec}' is not a known descriptor`);
  const duration = parseGoDuration(spec.slice('@every '.length).trim());
  if (duration === undefined)
    return problem(`'${spec}' needs a Go duration such as 30s or 1h30m (units ${GO_DURATION_UNITS})`);
  const everyMs = Math.max(1000, Math.floor(duration / 1000) * 1000);
  return { ok: true, schedule: { kind: 'every', everyMs, ...zone } };
}

/** A field is a comma-separated list of `*`, `?`, `N` or `N-M`, each with an optional `/step`. */
function checkField(field: string, range: FieldRange): string | undefined {
  for (const part of field.split(',')) {
    if (part === '') return 'an empty list item';
    const [span = '', step, extra] = part.split('/');
    if (extra !== undefined) return `'${part}' has more than one '/'`;
    if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0))
      return `the step '${step}' must be a positive number`;
    if (span === '*' || span === '?') continue;
    const [low = '', high, more] = span.split('-');
    if (more !== undefined) return `'${span}' has more than one '-'`;
    const start = valueOf(low, range);
    const end = high === undefined ? start : valueOf(high, range);
    if (typeof start === 'string') return start;
    if (typeof end === 'string') return end;
    if (start > end) return `the range '${span}' starts after it ends`;
  }
  return undefined;
}

function valueOf(text: string, range: FieldRange): number | string {
  const named = range.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named > 0 || (named === 0 && range.min === 0)) return named;
  if (!/^\d+$/.test(text)) return `'${text}' is not a number${range.names ? ' or a name' : ''}`;
  const value = Number(text);
  if (value < range.min || value > range.max) return `${value} is outside ${range.min}-${range.max}`;
  return value;
}

function isTimeZone(zone: string): boolean {
  // Go's LoadLocation takes "" and "UTC" as UTC and "Local" as the host's zone.
  if (zone === '' || zone === 'UTC' || zone === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function problem(text: string): CrontabParse {
  return { ok: false, problem: text };
}
