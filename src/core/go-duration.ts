/**
 * Go's `time.ParseDuration`, which shell-operator uses for `settings.executionMinInterval` and
 * cron's `@every`: a signed sequence of decimal numbers, each with a unit (`300ms`, `1h30m`,
 * `1.5h`); `0` alone needs no unit.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** The duration in milliseconds, or undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = /^[-+]/.test(text) ? text.slice(1) : text;
  if (body === '0') return 0;
  if (!/^(?:(?:\d+\.?\d*|\.\d+)[^\d.]+)+$/.test(body)) return undefined;
  let total = 0;
  for (const [, amount, unit] of body.matchAll(/(\d+\.?\d*|\.\d+)([^\d.]+)/g)) {
    const perUnit = UNIT_MS[unit ?? ''];
    if (perUnit === undefined) return undefined;
    total += Number(amount) * perUnit;
  }
  return sign * total;
}

export const GO_DURATION_UNITS = 'ns, us, ms, s, m, h';

/**
 * The longest duration a setting or a module's field may hold: 576h (24 days). A Node timer holds
 * at most 2^31−1 ms (24.8 days) and fires at once above it, so a longer poll interval would poll
 * without pause and a longer timeout would end its process at once; the margin keeps a timeout plus
 * its kill grace within the timer too (docs/lifecycle.md "Bounds and timeouts"). Schedules are timed
 * in steps instead and have no such bound.
 */
const MAX_DURATION_MS = 576 * 3_600_000;

/** True when `ms` is longer than MAX_DURATION_MS. */
export function isTooLongForTimer(ms: number): boolean {
  return ms > MAX_DURATION_MS;
}

/** What is wrong with a duration that is too long, for the message of the setting's or field's error. */
export function tooLongProblem(text: string): string {
  return `'${text}' is longer than 576h (24 days), the longest duration kaddon can time`;
}

/** What to do about it, for the error's hint. */
export const TOO_LONG_HINT = 'Use at most 576h; a Node timer holds no more than 24.8 days.';
