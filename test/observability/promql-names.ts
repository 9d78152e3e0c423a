/**
 * The metric names and label names a PromQL expression relies on, read without a full parser: the
 * expressions of kaddon's rules and dashboard use selectors, functions, aggregations with `by`,
 * `on`, `without`, binary operators and Grafana's `$variables`, which is what this understands.
 */
export interface PromqlNames {
  /** Each selector's metric name and the label names its matchers filter on. */
  readonly selectors: readonly { readonly metric: string; readonly labels: readonly string[] }[];
  /** Labels named by `by (…)`, `on (…)`, `ignoring (…)`, `group_left (…)`, `group_right (…)`. */
  readonly grouping: readonly string[];
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
const GROUPING = /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/gu;

export function promqlNames(expression: string): PromqlNames {
  const selectors: { metric: string; labels: string[] }[] = [];
  const grouping: string[] = [];
  let text = expression
    .replace(/\$__\w+/gu, '5m')
    .replace(GROUPING, (_, keyword: string, list: string) => {
      if (keyword !== 'without') grouping.push(...splitList(list));
      return ' ';
    })
    .replace(/([A-Za-z_:][\w:]*)?\s*\{([^}]*)\}/gu, (_, metric: string | undefined, matchers: string) => {
      const labels = [...matchers.matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/gu)].map((match) => match[1]!);
      const named = labels.includes('__name__') ? undefined : metric;
      if (named !== undefined) selectors.push({ metric: named, labels });
      return ' ';
    });
  text = text.replace(/\[[^\]]*\]/gu, ' ').replace(/"(?:[^"\\]|\\.)*"/gu, ' ');
  for (const match of text.matchAll(/([A-Za-z_:][\w:]*)(\s*\()?/gu)) {
    const [, name, call] = match;
    if (call === undefined && !KEYWORDS.has(name!.toLowerCase()) && !isNumberWord(text, match.index))
      selectors.push({ metric: name!, labels: [] });
  }
  return { selectors, grouping };
}

/** `label_values(metric{…}, label)` of a Grafana variable: the expression and the label it lists. */
export function labelValuesQuery(query: string): { expression: string; label: string } | undefined {
  const match = /^label_values\((.*),\s*([A-Za-z_]\w*)\s*\)$/u.exec(query.trim());
  return match ? { expression: match[1]!, label: match[2]! } : undefined;
}

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** An identifier that is part of a number such as `1e6` or `0x1f`. */
function isNumberWord(text: string, index: number): boolean {
  return index > 0 && /[\d.]/u.test(text[index - 1]!);
}
