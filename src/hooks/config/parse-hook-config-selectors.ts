import type {
  FieldSelector,
  FieldSelectorOperator,
  LabelSelector,
  LabelSelectorOperator,
  NameSelector,
  NamespaceSelector,
} from '../hook-config.ts';
import type { ConfigObject } from './hook-config-reader.ts';

/**
 * The selectors of a kubernetes binding (docs/hooks.md "kubernetes"), checked as shell-operator checks them:
 * the schema's shapes, then what Kubernetes' own selector parsing refuses.
 */

const LABEL_OPERATORS: readonly LabelSelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const FIELD_OPERATORS: readonly FieldSelectorOperator[] = ['=', '==', 'Equals', '!=', 'NotEquals'];

const LABEL_HINT =
  'Label keys are [prefix/]name (name: up to 63 alphanumerics, - _ . inside); values are empty or a name.';

export function parseNameSelector(reader: ConfigObject): NameSelector {
  reader.allowOnly(['matchNames'], 'nameSelector');
  const matchNames = reader.stringList('matchNames');
  if (matchNames === undefined) reader.fail(undefined, `'matchNames' is required`);
  return { matchNames };
}

export function parseLabelSelector(reader: ConfigObject): LabelSelector {
  reader.allowOnly(['matchLabels', 'matchExpressions'], 'a label selector');
  if (reader.context.strict && reader.keys().length === 0)
    reader.fail(undefined, 'must have matchLabels or matchExpressions');
  const matchLabels = parseMatchLabels(reader.object('matchLabels'));
  const matchExpressions = reader.objectList('matchExpressions')?.map((item) => {
    item.allowOnly(['key', 'operator', 'values'], 'a match expression');
    const key = item.requiredString('key');
    checkLabelKey(key, (problem) => item.fail('key', problem, LABEL_HINT));
    const operator = item.requiredString('operator');
    if (!(LABEL_OPERATORS as readonly string[]).includes(operator))
      item.fail('operator', `'${operator}' is not one of ${LABEL_OPERATORS.join(', ')}`);
    const values = item.stringList('values');
    values?.forEach((value, i) => {
      checkLabelValue(value, (problem) => item.failItem('values', i, problem, LABEL_HINT));
    });
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues && (values ?? []).length === 0)
      item.fail('values', `must list at least one value for operator ${operator}`);
    if (!needsValues && (values ?? []).length > 0)
      item.fail('values', `must be empty for operator ${operator}`);
    return { key, operator: operator as LabelSelectorOperator, ...(values ? { values } : {}) };
  });
  return { ...(matchLabels ? { matchLabels } : {}), ...(matchExpressions ? { matchExpressions } : {}) };
}

function parseMatchLabels(reader: ConfigObject | undefined): Record<string, string> | undefined {
  if (reader === undefined) return undefined;
  const labels: Record<string, string> = {};
  for (const key of reader.keys()) {
    const value = reader.string(key) ?? '';
    const fail = (problem: string): never => reader.fail(key, problem, LABEL_HINT);
    checkLabelKey(key, fail);
    checkLabelValue(value, fail);
    labels[key] = value;
  }
  return labels;
}

export function parseFieldSelector(reader: ConfigObject): FieldSelector {
  reader.allowOnly(['matchExpressions'], 'fieldSelector');
  const items = reader.objectList('matchExpressions');
  if (items === undefined) reader.fail(undefined, `'matchExpressions' is required`);
  const matchExpressions = items.map((item) => {
    item.allowOnly(['field', 'operator', 'value'], 'a field selector expression');
    const field = item.requiredString('field');
    const operator = item.requiredString('operator');
    if (!(FIELD_OPERATORS as readonly string[]).includes(operator))
      item.fail('operator', `'${operator}' is not one of ${FIELD_OPERATORS.join(', ')}`);
    const value = item.requiredString('value');
    return { field, operator: operator as FieldSelectorOperator, value };
  });
  return { matchExpressions };
}

/**
 * `namespace`: when it has both selectors, shell-operator watches by labelSelector only, so
 * nameSelector is dropped here and `onIgnored` is told.
 */
export function parseNamespaceSelector(
  reader: ConfigObject,
  onIgnored: (what: string) => void,
): NamespaceSelector {
  reader.allowOnly(['nameSelector', 'labelSelector'], 'namespace');
  if (reader.keys().length === 0) reader.fail(undefined, 'must have nameSelector or labelSelector');
  const nameReader = reader.object('nameSelector');
  const labelReader = reader.object('labelSelector');
  const nameSelector = nameReader && parseNameSelector(nameReader);
  const labelSelector = labelReader && parseLabelSelector(labelReader);
  if (labelSelector) {
    if (nameSelector) onIgnored(`${reader.pathOf('nameSelector')} is ignored because labelSelector is set`);
    return { labelSelector };
  }
  return nameSelector ? { nameSelector } : {};
}

/** `group/version` or `version`, as Kubernetes' ParseGroupVersion reads it. */
export function isGroupVersion(text: string): boolean {
  return (text.match(/\//g) ?? []).length <= 1;
}

const NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

type Refuse = (problem: string) => never;

function checkLabelKey(key: string, refuse: Refuse): void {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  if (!prefixOk || !NAME.test(name) || key.indexOf('/') !== slash)
    refuse(`'${key}' is not a valid label key`);
}

function checkLabelValue(value: string, refuse: Refuse): void {
  if (value !== '' && !NAME.test(value)) refuse(`'${value}' is not a valid label value`);
}
