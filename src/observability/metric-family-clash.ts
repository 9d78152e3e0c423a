/** A metric family as the exposition format names it: its name and type. */
export interface MetricFamilyName {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary';
}

const SUFFIXES = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] } as const;

/**
 * Whether two families cannot be served on one endpoint: the same name, or one named like a
 * sample of the other (`x_count` beside a histogram `x`), which Prometheus' parser takes for a
 * second HELP line of the histogram and refuses the whole scrape.
 */
export function familiesClash(a: MetricFamilyName, b: MetricFamilyName): boolean {
  return a.name === b.name || isSampleOf(a.name, b) || isSampleOf(b.name, a);
}

function isSampleOf(name: string, family: MetricFamilyName): boolean {
  if (family.type !== 'histogram' && family.type !== 'summary') return false;
  return SUFFIXES[family.type].some((suffix) => name === family.name + suffix);
}
