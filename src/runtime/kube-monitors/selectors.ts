import type { FieldSelector, KubernetesBinding, LabelSelector } from '../../hooks/hook-config.ts';

/**
 * List/watch selector strings, as the apiserver reads them (docs/hooks.md "kubernetes": shell-operator's
 * `FormatLabelSelector` and `FormatFieldSelector`).
 */

/** `a=b,tier in (x,y),!gone`; empty for no selector. Keys are sorted so equal selectors share a watch. */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  if (selector === undefined) return '';
  const labels = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => compareText(a, b))
    .map(([key, value]) => `${key}=${value}`);
  const expressions = (selector.matchExpressions ?? []).map(({ key, operator, values = [] }) => {
    const list = [...values].sort(compareText).join(',');
    if (operator === 'In') return `${key} in (${list})`;
    if (operator === 'NotIn') return `${key} notin (${list})`;
    if (operator === 'Exists') return key;
    return `!${key}`;
  });
  return [...labels, ...expressions].join(',');
}

/** The binding's field selector, with `metadata.name=<name>` when nameSelector names one object. */
export function formatFieldSelector(
  binding: Pick<KubernetesBinding, 'fieldSelector' | 'nameSelector'>,
): string {
  const terms = formatFieldTerms(binding.fieldSelector);
  const names = binding.nameSelector?.matchNames ?? [];
  if (names.length === 1) terms.push(`metadata.name=${names[0] ?? ''}`);
  return terms.join(',');
}

/** With several names the watch cannot select them, so the binding filters (undefined: no filter). */
export function nameFilterOf(
  binding: Pick<KubernetesBinding, 'nameSelector'>,
): ReadonlySet<string> | undefined {
  const names = binding.nameSelector?.matchNames ?? [];
  return names.length > 1 ? new Set(names) : undefined;
}

function formatFieldTerms(selector: FieldSelector | undefined): string[] {
  return (selector?.matchExpressions ?? []).map(({ field, operator, value }) => {
    const negated = operator === '!=' || operator === 'NotEquals';
    return `${field}${negated ? '!=' : '='}${value}`;
  });
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
