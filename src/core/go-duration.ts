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
